import Deflate
import Foundation
import Testing
import TestSupport
import ZlibReference

/// The payloads of the SMART Health Card examples (spec and HL7 IG) inflate to their minified JSON.
@Suite struct SmartHealthCardPayloadTests {
    static let examples: [URL] = ["vectors/shc-spec", "vectors/shc-hl7-ig"].flatMap { folder in
        Corpus.files(folder, extensions: ["txt"]).filter { $0.lastPathComponent.hasSuffix("-d-jws.txt") }
    }

    static func base64URL(_ s: Substring) -> [UInt8]? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return Data(base64Encoded: t).map(Array.init)
    }

    @Test func findsTheExamples() {
        #expect(Self.examples.count >= 8)
    }

    @Test(arguments: examples)
    func inflatesTheExamplePayload(_ jwsFile: URL) throws {
        let jws = try String(contentsOf: jwsFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let payload = try #require(Self.base64URL(parts[1]))
        let minifiedFile = jwsFile.deletingLastPathComponent()
            .appendingPathComponent(jwsFile.lastPathComponent.replacingOccurrences(of: "-d-jws.txt", with: "-c-jws-payload-minified.json"))
        let expected = Array(try String(contentsOf: minifiedFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        let inflated = try Inflate.raw(payload, limit: 5 << 20)
        #expect(inflated == expected)
        #expect(ZlibOracle.inflate(payload, limit: 5 << 20) == .inflated(inflated))
        // Exactly the size is enough; one byte less is not.
        #expect(try Inflate.raw(payload, limit: inflated.count) == expected)
        #expect(throws: InflateError.outputTooLarge(limit: inflated.count - 1)) { try Inflate.raw(payload, limit: inflated.count - 1) }
    }
}
