import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import Testing
import TestSupport

@Suite struct BadInputTests {
    @Test(arguments: ImportEngine.available) func malformedFileAmongGoodOnesLandsNothingOfItself(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let good1 = try f.dir.write("in/a.json", Make.observation("o1"))
        let bad = try f.dir.write("in/b.json", Make.bundle([Make.observation("o2"), Make.observation("o3")]).replacingOccurrences(of: "\"o3\"", with: "\"o3\" x"))
        let good2 = try f.dir.write("in/c.json", Make.immunization("i1"))
        let report = await f.importer().importPaths([good1, bad, good2])
        #expect(report.failed == 1)
        let failure = try #require(report.files.first { $0.status == .failed })
        #expect(failure.path == bad)
        guard case .fhir(.json(let json))? = failure.error else { Issue.record("expected a JSON error, got \(String(describing: failure.error))"); return }
        #expect(json.offset > 0)
        #expect(try await f.store.count(RecordQuery(type: nil)) == 2)
        #expect(try await f.store.sources().map(\.identifier).sorted() == ["a.json", "c.json"])
    }

    @Test(arguments: ImportEngine.available) func bundleWithABadEntryLandsNothing(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let result = try await f.importJSON("b.json", Make.bundle([Make.observation("o1"), #"{"id":"x","status":"final"}"#]))
        #expect(result.status == .failed)
        #expect(try await f.store.count(RecordQuery(type: nil)) == 0)
    }

    @Test(arguments: ImportEngine.available) func ndjsonWithABadLineLandsNothing(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let lines = [Make.observation("o1"), Make.observation("o2"), "{\"resourceType\":\"Observation\",\"id\":\"o3\"", Make.observation("o4")]
        let path = try f.dir.write("in/Observation.ndjson", lines.map { $0.replacingOccurrences(of: "\n", with: "") }.joined(separator: "\n"))
        let report = await f.importer(source: "bulk").importPaths([path])
        #expect(report.files[0].status == .failed)
        #expect(report.files[0].error?.description.hasPrefix("line 3:") == true)
        #expect(try await f.store.count(RecordQuery(type: nil)) == 0)
    }

    @Test(arguments: ImportEngine.available) func plainJSONIsSkippedInAFolderButFailsWhenNamed(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let path = try f.dir.write("in/settings.json", #"{"theme":"dark"}"#)
        try f.dir.write("in/ok.json", Make.observation("o1"))
        let folder = await f.importer().importPaths([f.dir.path("in")])
        #expect(folder.files.map(\.status) == [.imported, .skipped])
        #expect(folder.succeeded)
        let named = await f.importer().importPaths([path])
        #expect(named.files[0].status == .failed)
        #expect(named.files[0].error == .notFHIR)
    }

    @Test(arguments: ImportEngine.available) func resourceWithoutIdOrTypeIsRejectedWithItsName(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let noID = try await f.importJSON("p.json", #"{"resourceType":"Patient","name":[{"family":"X"}]}"#)
        #expect(noID.error == .fhir(.missingIdentifier(resourceType: "Patient", offset: 0)))
        let noType = try await f.importJSON("q.json", #"[{"id":"1"}]"#)
        #expect(noType.error == .fhir(.notAnObject))
    }

    @Test(arguments: ImportEngine.available) func aTwoGigabyteFileFailsBeforeBeingRead(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let path = f.dir.path("in/huge.json")
        try FileManager.default.createDirectory(atPath: f.dir.path("in"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 2 << 30)  // sparse: no disk used
        try handle.close()
        let report = await f.importer().importPaths([path])
        #expect(report.files[0].error == .fileTooLarge(size: 2 << 30, limit: JSONLimits.default.maxDocumentBytes))
    }

    @Test(arguments: ImportEngine.available) func aTenThousandDeepArrayFailsWithItsOffset(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let deep = #"{"resourceType":"Patient","id":"p","x":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        let result = try await f.importJSON("deep.json", deep)
        guard case .fhir(.json(let e))? = result.error else { Issue.record("expected JSON error"); return }
        #expect(e.reason == .tooDeep(limit: 128))
        #expect(e.offset == 39 + 127)  // the 128th "[" after the object opened the first level
    }

    @Test(arguments: ImportEngine.available) func unreadablePathsAreReportedNotFatal(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let missing = f.dir.path("nope.json")
        try f.dir.write("in/ok.json", Make.observation("o1"))
        let report = await f.importer().importPaths([missing, f.dir.path("in/ok.json")])
        #expect(report.files.map(\.status) == [.failed, .imported])
        #expect(report.files[0].error == .unreadable(path: missing, reason: "no such file or folder"))
    }
}
