import FHIR
import Foundation
import TestSupport

/// One case of the member states' DCC test data (`../shared/vectors/eu-dcc/CC/2DCode/raw/N.json`).
struct MemberStateCase: Sendable, CustomStringConvertible {
    let country: String
    let name: String
    let json: JSONObject

    var description: String { "\(country)/\(name)" }

    /// Every case, sorted; files that are not JSON objects are kept with an empty body (the
    /// harness reports them as configuration errors).
    static let all: [MemberStateCase] = {
        Corpus.files("vectors/eu-dcc", extensions: ["json"]).compactMap { url in
            let parts = url.pathComponents
            guard parts.count >= 4, parts[parts.count - 3] == "2DCode", parts[parts.count - 2] == "raw" else { return nil }
            let object = (try? Data(contentsOf: url)).flatMap { try? JSONReader().read($0).objectValue } ?? JSONObject()
            return MemberStateCase(country: parts[parts.count - 4], name: url.deletingPathExtension().lastPathComponent, json: object)
        }
    }()

    /// `EXPECTEDRESULTS[key]`, or `nil` when the case does not test that step.
    func expected(_ key: String) -> Bool? { json["EXPECTEDRESULTS"]?.objectValue?.bool(key) }

    func string(_ key: String) -> String? { json.string(key) }

    func hex(_ key: String) -> [UInt8]? { string(key).flatMap(Self.bytes(hex:)) }

    var context: JSONObject { json["TESTCTX"]?.objectValue ?? JSONObject() }

    /// The DSC, base64 DER.
    var certificate: String? { context.string("CERTIFICATE") }

    /// `VALIDATIONCLOCK`, read as the harness's `isoparse` reads it (no zone means UTC).
    var validationClock: Date? {
        guard let text = context.string("VALIDATIONCLOCK") else { return nil }
        return Self.isoDate(text)
    }

    static func isoDate(_ text: String) -> Date? {
        let iso = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            iso.formatOptions = options
            if let d = iso.date(from: text) { return d }
        }
        // No zone: append Z, as isoparse treats a naive time as UTC here.
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            iso.formatOptions = options
            if let d = iso.date(from: text + "Z") { return d }
        }
        iso.formatOptions = [.withFullDate]
        return iso.date(from: text)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// `tests/known_issues.csv`: harness tests the member states know to be wrong for a file or a
/// whole country; the harness marks them xfail (run, but not counted either way).
struct KnownIssues: Sendable {
    let keys: Set<String>

    static let shared: KnownIssues = {
        let text = (try? String(contentsOf: FixtureFiles.url("vectors/eu-dcc/tests/known_issues.csv"), encoding: .utf8)) ?? ""
        var keys: Set<String> = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else { continue }
            keys.insert("\(fields[0]):\(fields[1]):\(fields[2])")
        }
        return KnownIssues(keys: keys)
    }()

    /// Whether the harness expects `test` to fail for this case (the harness's `known_issue` lookup order).
    func contains(_ test: String, _ c: MemberStateCase) -> Bool {
        keys.contains("\(test):\(c.country):\(c.name)") || keys.contains("\(test):\(c.country):")
            || keys.contains(":\(c.country):\(c.name)") || keys.contains(":\(c.country):")
    }
}
