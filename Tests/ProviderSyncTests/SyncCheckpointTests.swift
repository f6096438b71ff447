import Foundation
import Testing

@testable import ProviderSync

/// The checkpoint saved after every page: steps as JSON, the seen ids after it one per line.
@Suite struct SyncCheckpointTests {
    static func checkpoint(seen: Set<String>) -> SyncCheckpoint {
        var search = SyncCheckpoint.StepState(step: DownloadStep(kind: .search, resourceType: "Observation", category: "vital-signs"))
        search.next = URL(string: "https://ehr.example.org/fhir/Observation?page=2&x=%0A")
        search.pages = 3
        search.resources = 600
        let patient = SyncCheckpoint.StepState(step: DownloadStep(kind: .patient, resourceType: "Patient"), done: true, pages: 1, resources: 1)
        return SyncCheckpoint(full: true, since: Date(timeIntervalSince1970: 1_700_000_000), started: Date(timeIntervalSince1970: 1_700_000_300), steps: [patient, search], seen: seen)
    }

    @Test(arguments: [Set<String>(), ["Patient/p"], Set((0..<3_000).map { "Observation/o-\($0).x" })])
    func whatIsSavedReadsBackTheSame(seen: Set<String>) throws {
        let saved = Self.checkpoint(seen: seen)
        let data = try saved.encoded()
        // The ids are not inside the JSON (no escaping of thousands of strings per page).
        let newline = try #require(data.firstIndex(of: 0x0A))
        #expect(try JSONSerialization.jsonObject(with: data[..<newline]) is [String: Any])
        let read = try SyncCheckpoint(encoded: data)
        #expect(read.seen == seen)
        #expect(read.full && read.since == saved.since && read.started == saved.started)
        #expect(read.steps.map(\.step.key) == saved.steps.map(\.step.key))
        #expect(read.steps[1].next == saved.steps[1].next && read.steps[1].pages == 3 && read.steps[0].done)
    }

    /// The steps are written as `JSONEncoder` writes them, whatever is set or left out.
    @Test func theStepsAreWrittenAsJSONEncoderWritesThem() throws {
        var checkpoints = [Self.checkpoint(seen: ["Patient/p"])]
        var odd = Self.checkpoint(seen: [])
        odd.since = nil
        odd.started = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        odd.full = false
        odd.steps[1].skipped = true
        odd.steps[1].ignoresSince = true
        odd.steps[1].next = URL(string: "/fhir/Observation?_getpages=a%20b&x=\u{e9}")
        odd.steps.append(SyncCheckpoint.StepState(step: DownloadStep(kind: .everything, resourceType: "Patient")))
        checkpoints.append(odd)
        checkpoints.append(SyncCheckpoint(full: true, since: nil, started: Date(), steps: [], seen: []))
        for checkpoint in checkpoints {
            let data = try checkpoint.encoded()
            let newline = try #require(data.firstIndex(of: 0x0A))
            let ours = try #require(try JSONSerialization.jsonObject(with: data[..<newline]) as? NSDictionary)
            let theirs = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(checkpoint)) as? NSDictionary)
            #expect(ours == theirs)
            let read = try SyncCheckpoint(encoded: data)
            #expect(read.started == checkpoint.started && read.since == checkpoint.since && read.steps.map(\.next) == checkpoint.steps.map(\.next))
        }
    }

    /// Ids seen again are saved once; what is saved reads back as the set.
    @Test func idsSeenAgainAreSavedOnce() throws {
        var checkpoint = Self.checkpoint(seen: ["Patient/p"])
        checkpoint.see(["Observation/1", "Patient/p", "Observation/2"])
        checkpoint.see(["Observation/2", "Observation/3"])
        let data = try checkpoint.encoded()
        let lines = data[data.index(after: data.firstIndex(of: 0x0A)!)...].split(separator: 0x0A)
        #expect(lines.count == 4)
        #expect(try SyncCheckpoint(encoded: data).seen == ["Patient/p", "Observation/1", "Observation/2", "Observation/3"])
    }

    /// A checkpoint an earlier version saved (the ids inside the JSON, newline-joined) resumes.
    @Test func aCheckpointSavedWholeAsJSONStillReads() throws {
        var old = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(Self.checkpoint(seen: []))) as? [String: Any])
        old["seen"] = "Patient/p\nObservation/1"
        let read = try SyncCheckpoint(encoded: try JSONSerialization.data(withJSONObject: old))
        #expect(read.seen == ["Patient/p", "Observation/1"])
        #expect(read.steps.count == 2)
    }

    @Test func aDamagedCheckpointIsAnError() {
        for bytes in ["", "\n", "{\"full\":true}\nPatient/p", "not json\nPatient/p"] {
            #expect(throws: (any Error).self) { try SyncCheckpoint(encoded: Data(bytes.utf8)) }
        }
    }
}
