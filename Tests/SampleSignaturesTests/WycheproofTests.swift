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
            File.self, from: Shared.data("vectors/wycheproof/ecdsa_secp256r1_sha256_test.json")
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
}
