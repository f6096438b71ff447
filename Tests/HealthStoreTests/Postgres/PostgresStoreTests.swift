import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStorePostgres
import PostgresNIO
import Synchronization
import Testing
import TestSupport

/// What only the PostgreSQL engine has to show: many people in one database, migrations,
/// transactions and the per-person write lock. Runs when `HEALTHRECORDS_POSTGRES_URL` is set.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, "HEALTHRECORDS_POSTGRES_URL is not set"))
struct PostgresStoreTests {
    let dir = TemporaryDirectory()

    func store(_ person: String = "test-\(UUID().uuidString)", lockTimeout: Duration = .seconds(10)) async throws -> PostgresHealthStore {
        try await PostgresHealthStore(database: try PostgresTestDatabase.shared(), person: person, lockTimeout: lockTimeout)
    }

    func importBundle(_ store: any HealthStore, _ resources: [String], source: String) async throws -> ImportOutcome {
        let path = try dir.write("in/\(UUID().uuidString).json", Make.bundle(resources))
        let report = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: source))).importPaths([path])
        #expect(report.failed == 0, "\(report.files.compactMap(\.error))")
        return report.totals
    }

    @Test func manyPeopleInOneDatabaseSeeOnlyTheirOwnData() async throws {
        let alice = try await store()
        let bob = try await store()
        // The same source and resource ids for both: identities are per person.
        _ = try await importBundle(alice, [Make.observation("o1"), Make.observation("o2"), Make.immunization("i1")], source: "clinic")
        let bobs = try await importBundle(bob, [Make.observation("o1", value: "9.9")], source: "clinic")
        #expect(bobs.inserted == 1)
        _ = try await bob.saveSamples([try MakeSample.glucose()])

        #expect(try await alice.count(RecordQuery(type: nil)) == 3)
        #expect(try await bob.count(RecordQuery(type: nil)) == 1)
        #expect(try await alice.currentAnchor() == QueryAnchor(rawValue: 3))
        #expect(try await bob.currentAnchor() == QueryAnchor(rawValue: 2))
        let bobsO1 = try #require(try await bob.resource(RecordIdentity(source: "clinic", resourceType: .observation, identifier: "o1")))
        #expect(String(decoding: bobsO1.resource.data, as: UTF8.self).contains("9.9"))
        #expect(try await alice.samples(QuantitySampleQuery(type: nil)).isEmpty)
        #expect(try await alice.sampleChanges(AnchoredSampleQuery(type: nil, anchor: nil)).added.isEmpty)

        let consent = ConsentManager(store: alice)
        let app = try await consent.register(
            name: "A", purpose: "p", privacyPolicyURL: URL(string: "https://example.org/p")!, requestedTypes: [.clinical(.labResult)])
        #expect(try await ConsentManager(store: bob).apps().isEmpty)
        await #expect(throws: ConsentError.appNotFound(app.appID)) { try await ConsentManager(store: bob).view(appID: app.appID) }

        // Deleting Bob's source leaves Alice's records and anchors alone.
        #expect(try await bob.delete(source: "clinic", resourceType: nil, identifier: nil) == 1)
        #expect(try await alice.count(RecordQuery(type: .labResult)) == 2)
        #expect(try await alice.changes(AnchoredQuery(type: nil, anchor: nil)).deleted.isEmpty)
        #expect(try await alice.currentAnchor() == QueryAnchor(rawValue: 3))
        #expect(try await bob.changes(AnchoredQuery(type: nil, anchor: nil)).deleted.map(\.identity.identifier) == ["o1"])
    }

    @Test func migrationsAreAppliedOnceAndAgainChangeNothing() async throws {
        let url = try await PostgresTestDatabase.makeScratchDatabase()
        do {
            let first = try PostgresHealthDatabase(url: url)
            try await first.migrate()
            try await first.migrate()
            let applied = try await first.appliedMigrations()
            #expect(applied == ["v1-records", "v2-samples", "v3-verifiable-records", "v4-consent", "v5-store-key", "v6-consent-categories", "v7-credentials", "v8-category-release-index", "v9-providers", "v10-tombstones-by-source", "v11-category-clinical-date-index", "v12-hosted-links", "v13-history-windows", "v14-passkeys", "v15-person-names", "v16-server-settings", "v17-household", "v18-app-catalogue", "v19-category-search-indexes", "v20-link-makers"])
            // Another process (another pool) finds the schema in place and applies nothing.
            let second = try PostgresHealthDatabase(url: url)
            try await second.migrate()
            #expect(try await second.appliedMigrations() == applied)
            let store = try await PostgresHealthStore(database: second, person: "p")
            _ = try await importBundle(store, [Make.observation("o1")], source: "s")
            #expect(try await store.count(RecordQuery(type: nil)) == 1)
            await first.shutdown()
            await second.shutdown()
        }
        try await PostgresTestDatabase.drop(url)
    }

    @Test func aDatabaseFromANewerVersionIsRefused() async throws {
        let url = try await PostgresTestDatabase.makeScratchDatabase()
        do {
            let database = try PostgresHealthDatabase(url: url)
            try await database.migrate()
            var scratch = try PostgresTestDatabase.url()
            scratch.database = url.database
            let config = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: .disable)
            let connection = try await PostgresConnection.connect(configuration: config, id: 2, logger: PostgresTestDatabase.logger)
            try await connection.query("INSERT INTO schema_migrations (name, applied_order) VALUES ('v9-future', 99)", logger: PostgresTestDatabase.logger)
            try await connection.close()
            await database.shutdown()
            let later = try PostgresHealthDatabase(url: url)
            await #expect(throws: HealthStoreError.unknownSchema(migration: "v9-future")) { try await later.migrate() }
            await later.shutdown()
        }
        try await PostgresTestDatabase.drop(url)
    }

    /// Yields `count` observations, then fails: more than one batch has been written by then.
    final class FailingProducer: ResourceProducer, @unchecked Sendable {
        struct Broken: Error {}
        var produced = 0
        let count: Int
        init(count: Int) { self.count = count }
        func next() throws -> ClassifiedResource? {
            guard produced < count else { throw Broken() }
            produced += 1
            return try RecordBuilder().classify(try FHIRResource(data: Data(Make.observation("o\(produced)").utf8)))
        }
    }

    @Test func aFailedImportRollsEverythingBack() async throws {
        let s = try await store()
        _ = try await importBundle(s, [Make.observation("kept")], source: "before")
        let anchor = try await s.currentAnchor()
        await #expect(throws: FailingProducer.Broken.self) {
            try await s.importResources(source: RecordSource(identifier: "new-source"), from: FailingProducer(count: 700))
        }
        #expect(try await s.count(RecordQuery(type: nil)) == 1)
        #expect(try await s.currentAnchor() == anchor)
        #expect(try await s.sources().map(\.identifier) == ["before"])
        // A failing sample save lands nothing either.
        let sample = try MakeSample.glucose()
        _ = try await s.saveSamples([sample])
        let conflicting = try QuantitySample(
            uuid: sample.uuid, type: .bloodGlucose, value: "1.0", unit: "mmol/L", startDate: sample.startDate, source: sample.source)
        await #expect(throws: HealthStoreError.sampleConflict(sample.uuid)) { try await s.saveSamples([try MakeSample.heartRate(), conflicting]) }
        #expect(try await s.samples(QuantitySampleQuery(type: nil)).count == 1)
    }

    /// Yields observations of one source, pausing between them so that a second importer
    /// would interleave if it could.
    final class PacedProducer: ResourceProducer, @unchecked Sendable {
        let prefix: String
        let count: Int
        var produced = 0
        let started: (@Sendable () -> Void)?
        init(prefix: String, count: Int, started: (@Sendable () -> Void)? = nil) {
            self.prefix = prefix
            self.count = count
            self.started = started
        }
        func next() throws -> ClassifiedResource? {
            guard produced < count else { return nil }
            if produced == 0 { started?() }
            produced += 1
            Thread.sleep(forTimeInterval: 0.002)
            return try RecordBuilder().classify(try FHIRResource(data: Data(Make.observation("\(prefix)\(produced)").utf8)))
        }
    }

    @Test func twoImportersForOnePersonDoNotInterleave() async throws {
        let person = "test-\(UUID().uuidString)"
        let first = try await store(person)
        let second = try await store(person)
        async let a = first.importResources(source: RecordSource(identifier: "a"), from: PacedProducer(prefix: "a", count: 300))
        async let b = second.importResources(source: RecordSource(identifier: "b"), from: PacedProducer(prefix: "b", count: 300))
        let (ra, rb) = try await (a, b)
        #expect(ra.inserted == 300 && rb.inserted == 300)
        let changes = try await first.changes(AnchoredQuery(type: nil, anchor: nil))
        // Anchors are gap-free, and each import holds one unbroken run of them.
        #expect(changes.addedAnchors.map(\.rawValue) == Array(1...600))
        let sources = changes.added.map(\.source.identifier)
        let runs = zip(sources, sources.dropFirst()).filter { $0 != $1 }.count + 1
        #expect(runs == 2)
        #expect(try await first.currentAnchor() == QueryAnchor(rawValue: 600))
    }

    @Test func aWriterWaitingLongerThanTheLockTimeoutGetsStoreBusy() async throws {
        let person = "test-\(UUID().uuidString)"
        let holder = try await store(person)
        let impatient = try await store(person, lockTimeout: .milliseconds(200))
        let started = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        /// Holds the import (and so the person's lock) open until the test releases it.
        final class HoldingProducer: ResourceProducer, @unchecked Sendable {
            var done = false
            let started: @Sendable () -> Void
            let release: DispatchSemaphore
            init(release: DispatchSemaphore, started: @escaping @Sendable () -> Void) {
                self.release = release
                self.started = started
            }
            func next() throws -> ClassifiedResource? {
                if done { return nil }
                done = true
                started()
                _ = release.wait(timeout: .now() + 60)
                return try RecordBuilder().classify(try FHIRResource(data: Data(Make.observation("slow").utf8)))
            }
        }
        let producer = HoldingProducer(release: release) { started.withLock { $0 = true } }
        let slow = Task { try await holder.importResources(source: RecordSource(identifier: "a"), from: producer) }
        // A minute at most: a writer that never starts fails the test rather than hanging it.
        let deadline = ContinuousClock.now + .seconds(60)
        while !started.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        guard started.withLock({ $0 }) else {
            release.signal()
            Issue.record("the first import did not start within a minute")
            return
        }
        await #expect(throws: HealthStoreError.storeBusy(path: impatient.location)) {
            try await impatient.importResources(source: RecordSource(identifier: "b"), from: ResourceList([]))
        }
        release.signal()
        #expect(try await slow.value.inserted == 1)
    }

    @Test func sealedColumnsHoldNoPlaintextAndALockedStoreRefuses() async throws {
        let person = "test-\(UUID().uuidString)"
        let key = StoreCredentials.keyFile(Data(repeating: 3, count: 32))
        let database = try PostgresTestDatabase.shared()
        let s = try await PostgresHealthStore(database: database, person: person, credentials: key, kdf: .testing)
        _ = try await importBundle(s, [Make.record(.condition, id: "secret-id-4711", text: "Zebra-marker-condition")], source: "Jane_Roe.json")
        #expect(try await s.records(RecordQuery(type: .condition)).map(\.displayName) == ["Zebra-marker-condition"])
        let rows = try await PostgresTestDatabase.admin { connection in
            try await connection.query(
                "SELECT encode(resource_id, 'escape') || encode(display_name, 'escape') || encode(data, 'escape') FROM resource WHERE person_id = \(person)",
                logger: PostgresTestDatabase.logger
            ).collect().map { try $0.decode(String.self) }
        }
        #expect(rows.count == 1)
        for secret in ["secret-id-4711", "Zebra-marker", "resourceType"] { #expect(!rows.joined().contains(secret), "\(secret)") }

        let locked = try await PostgresHealthStore(database: database, person: person)
        #expect(locked.isLocked)
        await #expect(throws: HealthStoreError.storeLocked(path: locked.location)) { try await locked.records(RecordQuery(type: nil)) }
        await #expect(throws: HealthStoreError.storeLocked(path: locked.location)) { try await locked.currentAnchor() }
        await #expect(throws: HealthStoreError.wrongPassphrase(path: locked.location)) {
            try await PostgresHealthStore(database: database, person: person, credentials: .keyFile(Data(repeating: 4, count: 32)))
        }
        let plain = try await store()
        _ = try await importBundle(plain, [Make.observation("o1")], source: "s")
        await #expect(throws: HealthStoreError.notEncrypted(path: plain.location)) {
            try await PostgresHealthStore(database: database, person: plain.person!, credentials: key)
        }
    }

    @Test func aPlainPersonConvertsInPlaceAndOthersStayAsTheyWere() async throws {
        let database = try PostgresTestDatabase.shared()
        let plain = try await store()
        let other = try await store()
        _ = try await importBundle(plain, [Make.record(.condition, id: "c1", text: "Unusual diagnosis")], source: "Jane_Roe.json")
        _ = try await importBundle(other, [Make.record(.condition, id: "c1", text: "Other diagnosis")], source: "x.json")
        _ = try await plain.saveSamples([try MakeSample.glucose()])
        let key = StoreCredentials.passphrase("pw")
        try await PostgresHealthStore.encrypt(database: database, person: plain.person!, credentials: key, kdf: .testing)
        await #expect(throws: HealthStoreError.alreadyEncrypted(path: plain.location)) {
            try await PostgresHealthStore.encrypt(database: database, person: plain.person!, credentials: key, kdf: .testing)
        }
        let opened = try await PostgresHealthStore(database: database, person: plain.person!, credentials: key)
        #expect(try await opened.records(RecordQuery(type: .condition, predicate: .source("Jane_Roe.json"))).map(\.displayName) == ["Unusual diagnosis"])
        #expect(try await opened.samples(QuantitySampleQuery(type: .bloodGlucose)).map(\.sample.value) == ["5.40"])
        let again = try await importBundle(opened, [Make.record(.condition, id: "c1", text: "Unusual diagnosis")], source: "Jane_Roe.json")
        #expect(again.unchanged == 1 && again.inserted == 0)
        #expect(try await other.records(RecordQuery(type: .condition)).map(\.displayName) == ["Other diagnosis"])
        try await opened.rotateKey(from: key, to: .passphrase("pw2"), kdf: .testing, date: Date())
        #expect(try await PostgresHealthStore(database: database, person: plain.person!, credentials: .passphrase("pw2")).count(RecordQuery(type: nil)) == 1)
    }
}

/// PostgreSQL URLs and connection failures: no server needed.
@Suite struct PostgresURLTests {
    @Test func urlsAreReadAndNeverShowThePassword() throws {
        let url = try PostgresStoreURL("postgresql://alice:s%40cret@db.example.org:6543/health?person=p%201&pool_size=3")
        #expect(url.user == "alice" && url.password == "s@cret" && url.host == "db.example.org" && url.port == 6543)
        #expect(url.database == "health" && url.person == "p 1" && url.poolSize == 3 && url.tls == .require)
        #expect(url.redacted == "postgres://alice@db.example.org:6543/health")
        #expect(!url.description.contains("cret"))
        #expect(try PostgresStoreURL("postgres://127.0.0.1/x").tls == .disable)
        #expect(try PostgresStoreURL("postgres://u@localhost").database == "u")
        #expect(throws: HealthStoreError.invalidArgument("unknown PostgreSQL URL option persn (known: person, sslmode, pool_size)")) {
            try PostgresStoreURL("postgres://127.0.0.1/x?persn=a")
        }
        #expect(throws: HealthStoreError.self) { try PostgresStoreURL("mysql://127.0.0.1/x") }
        #expect(throws: HealthStoreError.self) { try PostgresStoreURL("postgres://127.0.0.1/x?sslmode=maybe") }
    }

    @Test func anUnreachableServerFailsToOpenWithoutItsPassword() async throws {
        let database = try PostgresHealthDatabase(url: "postgres://someone:hunter2@127.0.0.1:1/none")
        do {
            _ = try await PostgresHealthStore(database: database, person: "p")
            Issue.record("opened a store on a closed port")
        } catch {
            guard case .cannotOpen(let path, _) = error else { Issue.record("expected cannotOpen, got \(error)"); return }
            #expect(path == "postgres://someone@127.0.0.1:1/none")
            #expect(!error.description.contains("hunter2"))
        }
    }
}
