import Foundation
import TestSupport

enum TestData {
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var g = SplitMix64(seed: seed)
        var out = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            var w = g.next()
            for _ in 0..<8 where i < count {
                out[i] = UInt8(truncatingIfNeeded: w)
                w >>= 8
                i += 1
            }
        }
        return out
    }

    /// Text-like bytes: words from a small vocabulary, so there are many matches of all lengths.
    static func text(_ count: Int, seed: UInt64) -> [UInt8] {
        let words = ["patient", "observation", "\"resourceType\"", ": ", "{", "}", "[", "]", ",", " ",
                     "immunization", "2021-01-01", "http://hl7.org/fhir", "code", "system", "value",
                     "a", "bb", "ccc", "\n", "Encounter", "status", "final", "0", "1", "42"]
        var g = SplitMix64(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count + 32)
        while out.count < count {
            out += Array(words[Int(g.next() % UInt64(words.count))].utf8)
        }
        return Array(out[..<count])
    }

    /// Mostly runs of a few bytes, with some noise: long matches at short distances.
    static func runs(_ count: Int, seed: UInt64) -> [UInt8] {
        var g = SplitMix64(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let period = Int(g.next() % 9) + 1
            let pattern = (0..<period).map { _ in UInt8(truncatingIfNeeded: g.next() % 4) }
            let length = Int(g.next() % 600) + 1
            for i in 0..<length where out.count < count { out.append(pattern[i % period]) }
        }
        return out
    }

    /// A large JSON file from the shared Synthea data (about 1 MB).
    static func largeJSON() throws -> [UInt8] {
        let files = Corpus.files("data/fhir/synthea", extensions: ["json"])
        let sized = try files.map { ($0, try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int ?? 0) }
        let pick = sized.filter { $0.1 >= 900_000 }.min { $0.1 < $1.1 } ?? sized.max { $0.1 < $1.1 }!
        return Array(try Data(contentsOf: pick.0))
    }
}
