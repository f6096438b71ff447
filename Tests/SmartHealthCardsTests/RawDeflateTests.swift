import Foundation
import SmartHealthCards
import Testing
import TestSupport

/// `RawDeflate.inflate` (pure-Swift `Deflate`) agrees with the system-zlib reference it replaced,
/// keeps its error cases, and `deflate` round-trips at every level.
@Suite struct RawDeflateTests {
    static let examplePayloads: [[UInt8]] = ["vectors/shc-spec", "vectors/shc-hl7-ig"].flatMap { folder in
        Shared.files(folder, extensions: ["txt"]).filter { $0.lastPathComponent.hasSuffix("-d-jws.txt") }.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).flatMap { try? CompactJWS($0.trimmingCharacters(in: .whitespacesAndNewlines)).payload }
        }
    }

    @Test func agreesWithSystemZlibOnTheExamplePayloads() throws {
        #expect(Self.examplePayloads.count >= 8)
        for payload in Self.examplePayloads {
            let ours = try RawDeflate.inflate(payload)
            #expect(ours == (try RawDeflate.inflateWithSystemZlib(payload)))
            #expect(ours.first == UInt8(ascii: "{"))
        }
    }

    @Test func roundTripsAtEveryLevel() throws {
        let text = Array(String(repeating: #"{"resourceType":"Immunization","status":"completed"},"#, count: 200).utf8)
        for level in 0...9 {
            let compressed = RawDeflate.deflate(text, level: level)
            #expect(try RawDeflate.inflate(compressed) == text)
            #expect(try RawDeflate.inflateWithSystemZlib(compressed) == text)
        }
        #expect(RawDeflate.deflate(text) == RawDeflate.deflate(text, level: 9))
    }

    @Test func keepsItsErrorCases() throws {
        let payload = try #require(Self.examplePayloads.first)
        let size = try RawDeflate.inflate(payload).count
        for systemZlib in [false, true] {
            func inflate(_ input: [UInt8], _ limit: Int) throws(RawDeflate.InflateError) -> [UInt8] {
                systemZlib ? try RawDeflate.inflateWithSystemZlib(input, limit: limit) : try RawDeflate.inflate(input, limit: limit)
            }
            #expect(throws: RawDeflate.InflateError.truncated) { try inflate(Array(payload.dropLast()), 1 << 20) }
            #expect(throws: RawDeflate.InflateError.trailingBytes(count: 2)) { try inflate(payload + [0, 0], 1 << 20) }
            #expect(throws: RawDeflate.InflateError.outputTooLarge(limit: size - 1)) { try inflate(payload, size - 1) }
            do {
                _ = try inflate([0x07], 1 << 20)
                Issue.record("block type 3 inflated")
            } catch {
                guard case .corrupt(let message) = error else { Issue.record("\(error)"); continue }
                #expect(message.contains("invalid block type"))
            }
        }
    }

    @Test func describesCorruptStreamsAsBefore() {
        #expect(RawDeflate.InflateError.corrupt("invalid block type").description == "not a raw DEFLATE stream (invalid block type)")
        #expect(RawDeflate.InflateError.outputTooLarge(limit: 10).description.contains("limit of 10 bytes"))
    }
}
