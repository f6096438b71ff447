import Crypto
import FHIR
import Foundation
import JOSE
import SmartHealthCards
import Testing
import TestSupport

/// The precomputed-key ECDSA path must answer exactly as swift-crypto does.
@Suite struct PrecomputedP256KeyTests {
    @Test func everyWycheproofP1363VectorGivesItsExpectedResult() throws {
        let file = try JSONReader().read(FixtureFiles.data("vectors/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json"))
        var checked = 0
        for group in file["testGroups"]?.arrayValue ?? [] {
            let point = WycheproofTests.hex(group["publicKey"]!["uncompressed"]!.stringValue!)
            let key = PrecomputedP256Key(try P256.Signing.PublicKey(x963Representation: point))
            for test in group["tests"]?.arrayValue ?? [] {
                let expected = test["result"]!.stringValue!
                let ok = key.isValidSignature(WycheproofTests.hex(test["sig"]!.stringValue!), for: WycheproofTests.hex(test["msg"]!.stringValue!))
                #expect(ok == (expected == "valid"), "tcId \(test["tcId"]!.numberValue!.text): \(test["comment"]!.stringValue!)")
                checked += 1
            }
        }
        #expect(checked == 262)
    }

    @Test func agreesWithSwiftCryptoOnFreshKeysAndTamperedSignatures() throws {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let privateKey = P256.Signing.PrivateKey()
            let key = PrecomputedP256Key(privateKey.publicKey)
            for _ in 0..<4 {
                var message = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let signature = Array(try privateKey.signature(for: message).rawRepresentation)
                #expect(key.isValidSignature(signature, for: message), "round \(round)")
                var bad = signature
                bad[Int.random(in: 0..<64, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
                #expect(key.isValidSignature(bad, for: message) == ES256.isValid(signature: bad, message: message, key: privateKey.publicKey))
                #expect(!key.isValidSignature(bad, for: message))
                message.append(0)
                #expect(!key.isValidSignature(signature, for: message))
                // Another key's signature never verifies.
                #expect(!PrecomputedP256Key(P256.Signing.PrivateKey().publicKey).isValidSignature(signature, for: Array(message.dropLast())) )
            }
        }
    }

    @Test func rejectsOutOfRangeScalarsAndWrongLengths() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = PrecomputedP256Key(privateKey.publicKey)
        let message = Array("edge cases".utf8)
        let good = Array(try privateKey.signature(for: message).rawRepresentation)
        let n: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                          0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51]
        let zero = [UInt8](repeating: 0, count: 32)
        for sig in [zero + Array(good[32...]), Array(good[..<32]) + zero, n + Array(good[32...]), Array(good[..<32]) + n,
                    [UInt8](repeating: 0xFF, count: 64), Array(good.dropLast()), good + [0]] {
            #expect(!key.isValidSignature(sig, for: message))
            #expect(key.isValidSignature(sig, for: message) == ES256.isValid(signature: sig, message: message, key: privateKey.publicKey))
        }
        #expect(key.isValidSignature(good, for: message))
    }
}
