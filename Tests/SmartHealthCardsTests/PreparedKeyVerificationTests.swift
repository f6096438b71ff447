import ByteEncodings
import Foundation
import JOSE
import SmartHealthCards
import Testing
import TestSupport

/// A key that keeps verifying cards switches to the precomputed check; nothing else changes.
@Suite struct PreparedKeyVerificationTests {
    @Test func aBusyKeyIsPreparedAndStillRejectsForgeries() async throws {
        let set = try Spec.jwks
        let key = set.keys(withID: Spec.kidCRL)[0]
        let crl = try RevocationList(data: FixtureFiles.data("vectors/shc-spec/issuer/.well-known/crl/\(Spec.kidCRL).json"))
        let verifier = SmartHealthCardVerifier(keys: StaticKeySource(keySets: [Spec.issuer: set], revocationLists: [Spec.issuer: [crl.keyID: crl]]))
        let card = try Spec.text("vectors/shc-spec/example-00-d-jws.txt")
        var verified = 0
        while !key.isPreparedForVerification, verified < 100 {
            let report = await verifier.verify(jws: card, at: Spec.afterSigning)
            #expect(report.errors.isEmpty, "\(report.errors)")
            verified += 1
        }
        #expect(key.isPreparedForVerification, "the key is prepared after a few dozen verifications")
        #expect(verified < 100)

        // The prepared key gives the same answers: the real card is valid, a flipped signature bit
        // and a changed signing input are not.
        #expect(await verifier.verify(jws: card, at: Spec.afterSigning).errors.isEmpty)
        let parts = card.split(separator: ".").map(String.init)
        for byte in [0, 10, 31, 32, 63] {
            var sig = try Base64URL.decode(parts[2])
            sig[byte] ^= 0x80
            let report = await verifier.verify(jws: "\(parts[0]).\(parts[1]).\(Base64URL.encode(sig))", at: Spec.afterSigning)
            #expect(report.errors.map(\.code) == [.signatureInvalid], "byte \(byte)")
        }
        let otherCard = try Spec.text("vectors/shc-spec/example-02-d-jws.txt")
        let otherParts = otherCard.split(separator: ".").map(String.init)
        let spliced = "\(otherParts[0]).\(otherParts[1]).\(parts[2])"
        #expect(await verifier.verify(jws: spliced, at: Spec.afterSigning).errors.map(\.code) == [.signatureInvalid])
        #expect(await verifier.verify(jws: otherCard, at: Spec.afterSigning).errors.isEmpty)
    }
}
