import Crypto
import Foundation
import Testing
@testable import SampleSignatures
import TestSupport

/// Project Wycheproof ECDSA P-256/SHA-256 vectors with DER signatures, run
/// through ``P256SignatureCheck``, the same check CMS verification uses.
///
/// "acceptable" results would be treated as must-reject (we only accept
/// strict DER); this file has none, which the test asserts.
@Suite("Wycheproof ECDSA P-256 SHA-256 (DER)")
struct WycheproofTests {
    struct File: Decodable {
        var numberOfTests: Int
        var testGroups: [Group]
    }

    struct Group: Decodable {
        var publicKeyDer: String
        var sha: String
        var tests: [Vector]
    }

    struct Vector: Decodable {
        var tcId: Int
        var comment: String
        var msg: String
        var sig: String
        var result: String
    }

    @Test func everyVectorGivesItsExpectedResult() throws {
        let file = try JSONDecoder().decode(
            File.self, from: FixtureFiles.data("vectors/wycheproof/ecdsa_secp256r1_sha256_test.json")
        )
        var agreed = 0
        var valid = 0
        var invalid = 0
        var acceptable = 0
        var disagreements: [Int] = []
        var readFast = 0
        for group in file.testGroups {
            #expect(group.sha == "SHA-256")
            let key = try DevicePublicKey(derRepresentation: [UInt8](hex: group.publicKeyDer))
            for vector in group.tests {
                // The fast DER reader must agree with swift-asn1 wherever it reads at all.
                let signatureBytes = [UInt8](hex: vector.sig)
                if let fast = P256SignatureCheck.fastParse(signatureBytes) {
                    readFast += 1
                    let full = try? P256SignatureCheck.fullParse(signatureBytes)
                    #expect(full == fast, "tcId \(vector.tcId): fast and full parse differ")
                }
                let accepted: Bool
                do {
                    try P256SignatureCheck.verify(
                        derSignature: [UInt8](hex: vector.sig), message: [UInt8](hex: vector.msg), publicKey: key.key
                    )
                    accepted = true
                } catch {
                    accepted = false
                }
                switch vector.result {
                case "valid": valid += 1
                case "invalid": invalid += 1
                default: acceptable += 1
                }
                // "acceptable" would count as agreeing only when rejected.
                if accepted == (vector.result == "valid") {
                    agreed += 1
                } else {
                    disagreements.append(vector.tcId)
                }
            }
        }
        #expect(file.numberOfTests == 484)
        #expect(valid == 174)
        #expect(invalid == 310)
        #expect(acceptable == 0)
        #expect(disagreements == [])
        #expect(agreed == 484)
        #expect(readFast > 174)
    }

    /// The same vectors through the whole CMS verification: each vector's message becomes the
    /// attached content of a SignedData without signed attributes (so the signature covers
    /// SHA-256 of the message, as in Wycheproof), its signature bytes go into the SignerInfo
    /// unchanged, and both readers (fast and full) must give the vector's result — with a
    /// signature error, never a parse error of the CMS around it.
    @Test func everyVectorGivesItsExpectedResultThroughCMSVerify() throws {
        let file = try JSONDecoder().decode(
            File.self, from: FixtureFiles.data("vectors/wycheproof/ecdsa_secp256r1_sha256_test.json")
        )
        var checked = 0
        var disagreements: [String] = []
        for group in file.testGroups {
            let key = try DevicePublicKey(derRepresentation: [UInt8](hex: group.publicKeyDer))
            for vector in group.tests {
                let signerInfo = SignerInfo(
                    signerIdentifier: .subjectKeyIdentifier(ArraySlice(key.subjectKeyIdentifier)),
                    digestAlgorithm: .sha256,
                    signedAttributes: nil,
                    signatureAlgorithm: .ecdsaWithSHA256,
                    signature: ArraySlice([UInt8](hex: vector.sig))
                )
                let signedData = SignedData(
                    digestAlgorithms: [.sha256],
                    encapContentInfo: EncapsulatedContentInfo(eContentType: CMSObjectIdentifier.data, eContent: ArraySlice([UInt8](hex: vector.msg))),
                    certificates: nil,
                    signerInfos: [signerInfo]
                )
                let message = try DEREncoding.encode(ContentInfo(signedData: signedData))
                for fastPath in [true, false] {
                    var verifier = CMSVerifier(trusting: TrustedSigner(publicKey: key))
                    verifier.usesFastPath = fastPath
                    let accepted: Bool
                    do {
                        let result = try verifier.verify(derEncoded: message)
                        accepted = result.content == [UInt8](hex: vector.msg)
                    } catch .signatureInvalid, .malformedSignature {
                        accepted = false
                    } catch {
                        disagreements.append("tcId \(vector.tcId) fast=\(fastPath): unexpected \(error)")
                        continue
                    }
                    checked += 1
                    if accepted != (vector.result == "valid") {
                        disagreements.append("tcId \(vector.tcId) fast=\(fastPath): accepted=\(accepted), expected \(vector.result)")
                    }
                }
            }
        }
        #expect(disagreements == [])
        #expect(checked == 2 * 484)
    }
}
