import Crypto
import FHIR
import Foundation
import JOSE
import SmartHealthCards
import Testing
import TestSupport

/// Wycheproof's ECDSA P-256 vectors in the raw r‖s form, through the check every card uses.
@Suite struct WycheproofTests {
    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = s.utf8.makeIterator()
        while let a = it.next(), let b = it.next() {
            out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16)!)
        }
        return out
    }

    @Test func everyP1363VectorGivesItsExpectedResult() throws {
        let file = try JSONReader().read(FixtureFiles.data("vectors/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json"))
        var checked = 0
        for group in file["testGroups"]?.arrayValue ?? [] {
            let point = Self.hex(group["publicKey"]!["uncompressed"]!.stringValue!)
            let key = try P256.Signing.PublicKey(x963Representation: point)
            for test in group["tests"]?.arrayValue ?? [] {
                let expected = test["result"]!.stringValue!
                let ok = ES256.isValid(signature: Self.hex(test["sig"]!.stringValue!), message: Self.hex(test["msg"]!.stringValue!), key: key)
                #expect(ok == (expected == "valid"), "tcId \(test["tcId"]!.numberValue!.text): \(test["comment"]!.stringValue!)")
                checked += 1
            }
        }
        #expect(checked == 262)
    }
}
