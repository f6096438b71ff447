import Crypto
import FHIR
import Foundation

/// `manifest.json`: what an export holds, file by file, with each file's SHA-256, so that an
/// import can tell a complete, unchanged export from anything else before it writes a row.
///
/// The hashes guard against damage and truncation, not against forgery: anyone can write a
/// manifest for files they made. That is why cards are verified again on import.
public struct ExportManifest: Sendable, Hashable {
    /// What `format` says: this is a HealthRecords export.
    public static let formatName = "healthrecords-export"
    /// The layout version this program writes and reads.
    public static let currentVersion = 1
    /// The manifest's name in the archive.
    public static let entryName = "manifest.json"

    /// What a file holds.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `sources.ndjson`: one source per line (directory, identifier, name).
        case sources
        /// `resources/<source>/<Type>.ndjson`: FHIR NDJSON of one source's resources of one type.
        case resources
        /// `resources/<source>/<Type>.meta.ndjson`: what the store knows of each resource beside its bytes.
        case resourceMeta = "resource-meta"
        /// `cards/cards.ndjson`: the cards, one line each, naming the card file and its stored status.
        case cardIndex = "card-index"
        /// `cards/<n>.smart-health-card` or `cards/<n>.hc1.txt`: one card or DCC as issued.
        case card
        /// `samples/samples.ndjson`: quantity samples, one line each.
        case samples
    }

    /// One file of the export.
    public struct File: Sendable, Hashable {
        /// Its path in the archive.
        public var path: String
        /// What it holds.
        public var kind: Kind
        /// Its size in bytes.
        public var bytes: Int
        /// The SHA-256 of its bytes, lowercase hex.
        public var sha256: String
        /// How many items (lines, or 1 for a card file) it holds.
        public var count: Int
        /// For resource files: the source's directory and the FHIR resource type.
        public var sourceDirectory: String?
        /// For resource files: the FHIR resource type.
        public var resourceType: String?
    }

    /// The layout version.
    public var formatVersion: Int
    /// When the export was made.
    public var created: Date
    /// What made it (`healthrecords <version>`).
    public var generator: String
    /// The files, in the order they were written.
    public var files: [File]

    /// Totals for people reading the manifest.
    public var counts: [String: Int] {
        var c = ["sources": 0, "resources": 0, "cards": 0, "samples": 0]
        for f in files {
            switch f.kind {
            case .sources: c["sources", default: 0] += f.count
            case .resources: c["resources", default: 0] += f.count
            case .card: c["cards", default: 0] += 1
            case .samples: c["samples", default: 0] += f.count
            case .resourceMeta, .cardIndex: break
            }
        }
        return c
    }

    /// The lowercase hex SHA-256 of some bytes, as the manifest writes it.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// The manifest as pretty JSON.
    public func encoded() -> [UInt8] {
        let counts = self.counts
        let list: [JSONValue] = files.map { f in
            var members = [
                JSONMember("path", .string(f.path)), JSONMember("kind", .string(f.kind.rawValue)), JSONMember("bytes", .number(JSONNumber(f.bytes))),
                JSONMember("sha256", .string(f.sha256)), JSONMember("count", .number(JSONNumber(f.count))),
            ]
            if let d = f.sourceDirectory { members.append(JSONMember("source", .string(d))) }
            if let t = f.resourceType { members.append(JSONMember("resourceType", .string(t))) }
            return .object(JSONObject(members))
        }
        let top = JSONObject([
            JSONMember("format", .string(Self.formatName)),
            JSONMember("formatVersion", .number(JSONNumber(formatVersion))),
            JSONMember("created", .string(ExportDates.string(created))),
            JSONMember("generator", .string(generator)),
            JSONMember("counts", .object(JSONObject(counts.keys.sorted().map { JSONMember($0, .number(JSONNumber(counts[$0] ?? 0))) }))),
            JSONMember("files", .array(list)),
        ])
        return Array((JSONWriter.pretty(.object(top)) + "\n").utf8)
    }

    /// Reads a manifest, refusing other formats and newer versions.
    public init(decoding bytes: [UInt8]) throws(ArchiveError) {
        let value: JSONValue
        do { value = try JSONReader().read(bytes) } catch { throw .badManifest("not JSON: \(error)") }
        guard let top = value.objectValue else { throw .badManifest("not a JSON object") }
        guard top["format"]?.stringValue == Self.formatName else { throw .badManifest("format is not \(Self.formatName)") }
        guard let version = top["formatVersion"]?.numberValue.flatMap({ Int($0.text) }) else { throw .badManifest("no formatVersion") }
        guard version == Self.currentVersion else { throw .badManifest("format version \(version); this program reads version \(Self.currentVersion)") }
        guard let created = top["created"]?.stringValue.flatMap(ExportDates.date) else { throw .badManifest("no created date") }
        guard let list = top["files"]?.arrayValue else { throw .badManifest("no files") }
        var files: [File] = []
        for (i, item) in list.enumerated() {
            guard let o = item.objectValue, let path = o["path"]?.stringValue, let kind = o["kind"]?.stringValue.flatMap(Kind.init(rawValue:)),
                let bytes = o["bytes"]?.numberValue.flatMap({ Int($0.text) }), let sha = o["sha256"]?.stringValue,
                let count = o["count"]?.numberValue.flatMap({ Int($0.text) }), bytes >= 0, count >= 0
            else { throw .badManifest("file \(i) lacks path, kind, bytes, sha256 or count") }
            files.append(File(path: path, kind: kind, bytes: bytes, sha256: sha, count: count, sourceDirectory: o["source"]?.stringValue, resourceType: o["resourceType"]?.stringValue))
        }
        self.init(formatVersion: version, created: created, generator: top["generator"]?.stringValue ?? "", files: files)
    }

    /// Makes a manifest.
    public init(formatVersion: Int = ExportManifest.currentVersion, created: Date, generator: String, files: [File]) {
        self.formatVersion = formatVersion
        self.created = created
        self.generator = generator
        self.files = files
    }
}

/// The one way dates are written in an export: ISO 8601 instants in UTC with milliseconds
/// (the precision samples are stored in, so a sample's dates come back exactly).
public enum ExportDates {
    /// The text of a date, rounded to the nearest millisecond. (Foundation's formatter
    /// truncates: a sample at `.123` stored as `0.12299…` would come back a millisecond early.)
    public static func string(_ d: Date) -> String {
        let ms = (d.timeIntervalSince1970 * 1000).rounded()
        let seconds = (ms / 1000).rounded(.down)
        let whole = Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        return String(whole.dropLast()) + "." + String(format: "%03d", Int(ms - seconds * 1000)) + "Z"
    }

    /// A date from its text, or `nil` when it is not one.
    ///
    /// The milliseconds are added as an integer (`ms / 1000`, as the store makes sample dates),
    /// not left to the parser's floating point, so a date comes back as the same `Date`.
    public static func date(_ s: String) -> Date? {
        guard s.hasSuffix("Z") else { return nil }
        var whole = String(s.dropLast())
        var milliseconds = 0
        if let dot = whole.firstIndex(of: ".") {
            let fraction = whole[whole.index(after: dot)...]
            guard (1...3).contains(fraction.count), fraction.allSatisfy(\.isASCII), let n = Int(fraction), n >= 0 else { return nil }
            milliseconds = n * [1, 100, 10, 1][fraction.count]
            whole = String(whole[..<dot])
        }
        guard let seconds = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(whole + "Z") else { return nil }
        let ms = (seconds.timeIntervalSince1970 * 1000).rounded() + Double(milliseconds)
        return Date(timeIntervalSince1970: ms / 1000)
    }
}
