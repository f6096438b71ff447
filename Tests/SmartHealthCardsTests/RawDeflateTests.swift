import Deflate
import Foundation
import SmartHealthCards
import Testing
import TestSupport
import ZlibReference

/// `RawDeflate.inflate` (the `Deflate` target's inflater under the cards' limit) agrees with
/// system zlib, keeps its error cases, and reads what `Compress.raw` writes at every level.
@Suite struct RawDeflateTests {
    static let examplePayloads: [[UInt8]] = ["vectors/shc-spec", "vectors/shc-hl7-ig"].flatMap { folder in
        Corpus.files(folder, extensions: ["txt"]).filter { $0.lastPathComponent.hasSuffix("-d-jws.txt") }.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).flatMap { try? CompactJWS($0.trimmingCharacters(in: .whitespacesAndNewlines)).payload }
        }
    }

    @Test func agreesWithSystemZlibOnTheExamplePayloads() throws {
        #expect(Self.examplePayloads.count >= 8)
        for payload in Self.examplePayloads {
            let ours = try RawDeflate.inflate(payload)
            #expect(ZlibOracle.inflate(payload, limit: RawDeflate.defaultLimit) == .inflated(ours))
            #expect(ours.first == UInt8(ascii: "{"))
        }
    }

    @Test func roundTripsAtEveryLevel() throws {
        let text = Array(String(repeating: #"{"resourceType":"Immunization","status":"completed"},"#, count: 200).utf8)
        for level in Compress.Level.allCases {
            let compressed = Compress.raw(text, level: level)
            #expect(try RawDeflate.inflate(compressed) == text)
            #expect(ZlibOracle.inflate(compressed, limit: text.count) == .inflated(text))
        }
    }

    /// Every example card's payload, recompressed the way issuing does, is no bigger than the
    /// issuer's own (zlib or another DEFLATE) plus 2 %, and zlib reads it back.
    @Test func recompressesTheExamplePayloadsAsSmallAsTheirIssuers() throws {
        for payload in Self.examplePayloads {
            let json = try RawDeflate.inflate(payload)
            let ours = Compress.raw(json, level: .best)
            #expect(ours.count <= payload.count + payload.count / 50, "\(ours.count) bytes against the issuer's \(payload.count)")
            #expect(ZlibOracle.inflate(ours, limit: json.count) == .inflated(json))
        }
    }

    @Test func keepsItsErrorCases() throws {
        let payload = try #require(Self.examplePayloads.first)
        let size = try RawDeflate.inflate(payload).count
        #expect(throws: RawDeflate.InflateError.truncated) { try RawDeflate.inflate(Array(payload.dropLast()), limit: 1 << 20) }
        #expect(throws: RawDeflate.InflateError.trailingBytes(count: 2)) { try RawDeflate.inflate(payload + [0, 0], limit: 1 << 20) }
        #expect(throws: RawDeflate.InflateError.outputTooLarge(limit: size - 1)) { try RawDeflate.inflate(payload, limit: size - 1) }
        do {
            _ = try RawDeflate.inflate([0x07], limit: 1 << 20)
            Issue.record("block type 3 inflated")
        } catch {
            guard case .corrupt(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("invalid block type"))
        }
        // zlib, the reference these cases were modelled on, refuses the same streams.
        for bad in [Array(payload.dropLast()), payload + [0, 0], [0x07]] {
            #expect(ZlibOracle.inflate(bad, limit: 1 << 20) == .failed)
        }
        #expect(ZlibOracle.inflate(payload, limit: size - 1) == .failed)
    }

    @Test func describesCorruptStreamsAsBefore() {
        #expect(RawDeflate.InflateError.corrupt("invalid block type").description == "not a raw DEFLATE stream (invalid block type)")
        #expect(RawDeflate.InflateError.outputTooLarge(limit: 10).description.contains("limit of 10 bytes"))
    }
}
