import FHIR
import Foundation
import GRDB
import Testing
import TestSupport

/// Imports killed with SIGKILL at random moments never leave a half-written file or a store that
/// needs repair; two importers at once both finish or one says the store is busy.
///
/// `HEALTHRECORDS_CRASH_ROUNDS` sets the number of kills (100 for the full campaign; a few by default).
@Suite(.serialized) struct CrashSafetyTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["HEALTHRECORDS_CRASH_ROUNDS"] ?? "") ?? 5
    let inputs = [Corpus.url("data/fhir/synthea").path, Corpus.url("data/fhir/ndjson").path]

    /// Records per source (one source per file), as `healthrecords sources` reports them.
    static func recordsPerSource(_ store: String) throws -> [String: Int] {
        let r = try CommandRunner(environment: ["HEALTHRECORDS_STORE": store]).run(["sources", "--json"])
        guard r.status == 0 else { throw StoreDidNotOpen(stderr: r.stderr) }
        var out: [String: Int] = [:]
        for s in try JSONReader().read(r.stdout).arrayValue ?? [] {
            out[s["identifier"]!.stringValue!] = s["records"]!.numberValue!.intValue!
        }
        return out
    }

    /// SQLite's own consistency check on the file (WAL replay is recovery, not repair).
    static func integrity(_ store: String) throws -> String? {
        try DatabaseQueue(path: store).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
    }

    struct StoreDidNotOpen: Error { let stderr: String }

    func startImport(_ store: String, _ paths: [String], stderr: String? = nil) throws -> ChildProcess {
        var env = ProcessInfo.processInfo.environment
        env["HEALTHRECORDS_STORE"] = store
        var errors = ChildProcess.Stream.null
        if let stderr {
            _ = FileManager.default.createFile(atPath: stderr, contents: nil)
            if let handle = FileHandle(forWritingAtPath: stderr) { errors = .file(handle) }
        }
        return try ChildProcess(
            executable: CommandRunner.executable, arguments: ["import"] + paths, environment: env,
            standardOutput: .null, standardError: errors)
    }

    func wait(_ p: ChildProcess) { p.waitUntilExit() }

    @Test func killedImportsLeaveWholeFilesOrNothing() throws {
        let cleanDir = TemporaryDirectory()
        let started = Date()
        let clean = try startImport(cleanDir.path("clean.sqlite"), inputs)
        wait(clean)
        #expect(clean.terminationStatus == 0)
        let duration = Date().timeIntervalSince(started)
        let expected = try Self.recordsPerSource(cleanDir.path("clean.sqlite"))
        // One source per file: every Synthea bundle and every NDJSON file but the export's log.
        let files = Corpus.files("data/fhir/synthea", extensions: ["json"]) + Corpus.files("data/fhir/ndjson", extensions: ["ndjson"])
        #expect(expected.count == files.filter { $0.lastPathComponent != "log.ndjson" }.count)
        #expect(expected.count == (Corpus.isFull ? 27 : 15))

        var partial = 0
        for round in 0..<Self.rounds {
            let dir = TemporaryDirectory()
            let store = dir.path("store.sqlite")
            let p = try startImport(store, inputs)
            // Kill points spread evenly over the clean run's time, so the early ones land
            // mid-import even when the clean run (cold caches) was slower than these.
            let fraction = Double(round + 1) / Double(Self.rounds + 1)
            usleep(useconds_t(max(0.1, duration * 0.9 * fraction) * 1_000_000))
            p.send(SIGKILL)
            wait(p)
            guard FileManager.default.fileExists(atPath: store) else { continue }
            #expect(try Self.integrity(store) == "ok", "round \(round)")
            let found = try Self.recordsPerSource(store)
            for (source, n) in found {
                // Each file landed whole, or not at all (an empty source row may exist only if nothing of it landed).
                #expect(n == expected[source] || n == 0, "round \(round): \(source) has \(n) of \(expected[source] ?? -1)")
            }
            if found.values.reduce(0, +) < expected.values.reduce(0, +) { partial += 1 }
            let again = try startImport(store, inputs)
            wait(again)
            #expect(again.terminationStatus == 0, "round \(round): re-import failed")
            #expect(try Self.recordsPerSource(store) == expected, "round \(round)")
        }
        // The kills must have landed mid-import at least sometimes, or the test proves nothing.
        #expect(partial > 0 || Self.rounds < 3)
    }

    @Test func twoImportersAtOnceBothFinishOrOneIsBusy() throws {
        let cleanDir = TemporaryDirectory()
        let clean = try startImport(cleanDir.path("clean.sqlite"), inputs)
        wait(clean)
        let expected = try Self.recordsPerSource(cleanDir.path("clean.sqlite"))
        for round in 0..<max(1, Self.rounds / 2) {
            let dir = TemporaryDirectory()
            let store = dir.path("store.sqlite")
            let a = try startImport(store, [inputs[0]], stderr: dir.path("a.err"))
            let b = try startImport(store, [inputs[1]], stderr: dir.path("b.err"))
            wait(a)
            wait(b)
            // Busy is exit 1 with "store busy"; anything else is a failure. Either way nothing is corrupted.
            for (p, name) in [(a, "a.err"), (b, "b.err")] {
                let err = (try? String(contentsOfFile: dir.path(name), encoding: .utf8)) ?? ""
                #expect(p.terminationStatus == 0 || (p.terminationStatus == 1 && err.contains("store busy")), "round \(round): exit \(p.terminationStatus): \(err.prefix(300))")
            }
            #expect(try Self.integrity(store) == "ok")
            for (source, n) in try Self.recordsPerSource(store) { #expect(n == expected[source] || n == 0) }
            let finish = try startImport(store, inputs)
            wait(finish)
            #expect(finish.terminationStatus == 0)
            #expect(try Self.recordsPerSource(store) == expected)
        }
    }
}
