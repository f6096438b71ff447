import FHIR
import Foundation

/// Where a sync stands, saved after every stored page, so a sync killed at any moment
/// continues where it was: finished steps are not fetched again, a step under way resumes at
/// its next page, and a page stored twice changes nothing (the same bytes are left alone).
struct SyncCheckpoint: Sendable, Codable {
    /// A step and how far it got.
    struct StepState: Sendable, Codable {
        var step: DownloadStep
        var done = false
        /// The next page to fetch; `nil` before the first page.
        var next: URL?
        /// Asks for everything rather than changes (the server refused `_lastUpdated`).
        var ignoresSince = false
        /// The server refused the search to this client; its type is not judged for deletions.
        var skipped = false
        var pages = 0
        var resources = 0
    }

    /// A full download (deletions found), or changes since ``since``.
    var full: Bool
    /// The lower bound of an incremental sync (the last sync's start, less an overlap).
    var since: Date?
    /// The provider's clock when this sync began: the next sync's lower bound.
    var started: Date
    var steps: [StepState]
    /// `Type/id` of everything a full download has seen.
    private(set) var seen: Set<String>
    /// The same ids one per line, as saved: kept as they are added, since making the text anew
    /// from the set after every page of a search cost milliseconds.
    private var seenLines: [UInt8]

    private enum CodingKeys: String, CodingKey { case full, since, started, steps, seen }

    init(full: Bool, since: Date?, started: Date, steps: [StepState], seen: Set<String>) {
        self.full = full
        self.since = since
        self.started = started
        self.steps = steps
        self.seen = []
        seenLines = []
        see(seen)
    }

    /// Adds ids to those seen.
    mutating func see(_ ids: some Sequence<String>) {
        for id in ids where seen.insert(id).inserted {
            if !seenLines.isEmpty { seenLines.append(0x0A) }
            seenLines.append(contentsOf: id.utf8)
        }
    }

    /// What is saved after every page: the steps as compact JSON (which has no raw newline),
    /// a newline, then the seen ids one per line (a FHIR id has no newline). Thousands of ids
    /// inside the JSON cost more to encode after every page than the page itself. The JSON is
    /// written directly, as `JSONEncoder` would write it (a date as seconds since 2001, a URL
    /// as its text, `nil` left out): `JSONEncoder` took longer than storing a search's page.
    func encoded() throws -> Data {
        var data = Data(JSONWriter.minified(json))
        data.append(0x0A)
        data.append(contentsOf: seenLines)
        return data
    }

    /// The steps as JSON, in the shape `init(from:)` reads.
    private var json: JSONValue {
        func number(_ text: String) -> JSONValue { .number(JSONNumber(uncheckedText: text)) }
        func date(_ d: Date) -> JSONValue { number("\(d.timeIntervalSinceReferenceDate)") }
        var members = [JSONMember("full", .bool(full))]
        if let since { members.append(JSONMember("since", date(since))) }
        members.append(JSONMember("started", date(started)))
        members.append(
            JSONMember(
                "steps",
                .array(
                    steps.map { s in
                        var step = [JSONMember("kind", .string(s.step.kind.rawValue)), JSONMember("resourceType", .string(s.step.resourceType))]
                        if let category = s.step.category { step.append(JSONMember("category", .string(category))) }
                        var state = [JSONMember("step", .object(JSONObject(step))), JSONMember("done", .bool(s.done))]
                        if let next = s.next { state.append(JSONMember("next", .string(next.absoluteString))) }
                        state += [JSONMember("ignoresSince", .bool(s.ignoresSince)), JSONMember("skipped", .bool(s.skipped))]
                        state += [JSONMember("pages", number("\(s.pages)")), JSONMember("resources", number("\(s.resources)"))]
                        return .object(JSONObject(state))
                    })))
        return .object(JSONObject(members))
    }

    /// Reads what ``encoded()`` saved (or a checkpoint saved whole as JSON, the ids in it).
    init(encoded data: Data) throws {
        let newline = data.firstIndex(of: 0x0A)
        self = try JSONDecoder().decode(Self.self, from: data[..<(newline ?? data.endIndex)])
        if let newline {
            let ids = data[data.index(after: newline)...]
            seen = []
            seenLines = []
            if !ids.isEmpty { see(String(decoding: ids, as: UTF8.self).split(separator: "\n").lazy.map(String.init)) }
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        full = try c.decode(Bool.self, forKey: .full)
        since = try c.decodeIfPresent(Date.self, forKey: .since)
        started = try c.decode(Date.self, forKey: .started)
        steps = try c.decode([StepState].self, forKey: .steps)
        let text = try c.decodeIfPresent(String.self, forKey: .seen) ?? ""
        seen = []
        seenLines = []
        see(text.split(separator: "\n").lazy.map(String.init))
    }

    /// The steps alone; the seen ids follow the JSON (see ``encoded()``).
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(full, forKey: .full)
        try c.encodeIfPresent(since, forKey: .since)
        try c.encode(started, forKey: .started)
        try c.encode(steps, forKey: .steps)
    }
}
