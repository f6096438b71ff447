import ClinicalRecords
import FHIR
import Foundation
import GRDB
import HealthImport
import SampleSignatures
import Testing
import TestSupport

@testable import HealthStoreCore
@testable import HealthStoreSQLite

@Suite struct SampleStoreTests {
    @Test(arguments: StoreEngine.all) func savesSamplesAndFindsThemByTypeDatesSourceAndLimit(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let first = try MakeSample.glucose("5.40")
        let samples = [
            first, try MakeSample.glucose("6.1", at: 3600), try MakeSample.heartRate(at: 60),
            try MakeSample.glucose("7.0", at: 7200, source: "other-app"),
        ]
        let outcome = try await f.store.saveSamples(samples)
        #expect(outcome.saved.map(\.sample) == samples)
        #expect(outcome.unchanged.isEmpty)

        func values(_ query: QuantitySampleQuery) async throws -> [String] {
            try await f.store.samples(query).map(\.sample.value)
        }
        #expect(try await values(QuantitySampleQuery(type: .bloodGlucose)) == ["5.40", "6.1", "7.0"])
        #expect(try await values(QuantitySampleQuery(type: .bloodGlucose, limit: 1, sort: SampleSort(.start, ascending: false))) == ["7.0"])
        #expect(try await values(QuantitySampleQuery(type: .bloodGlucose, predicate: .source("meter-app"))) == ["5.40", "6.1"])
        let window = SamplePredicate.startDate(from: MakeSample.start.addingTimeInterval(1), to: MakeSample.start.addingTimeInterval(7200))
        #expect(try await values(QuantitySampleQuery(type: nil, predicate: window)) == ["72", "6.1"])
        #expect(try await values(QuantitySampleQuery(type: nil, predicate: .uuids([first.uuid]))) == ["5.40"])
        #expect(try await values(QuantitySampleQuery(type: nil, predicate: .uuids([]))) == [])
        #expect(try await f.store.samples(QuantitySampleQuery(type: nil)).count == 4)

        let stored = try #require(try await f.store.samples(QuantitySampleQuery(type: nil, predicate: .uuids([first.uuid]))).first)
        #expect(stored.sample == first)
        #expect(stored.sample.device?.name == "Glucose Meter")
        #expect(stored.addedDate == f.now)
        #expect(stored.signatureStatus == .unsigned)
        await #expect(throws: HealthStoreError.invalidArgument("limit must not be negative")) {
            try await f.store.samples(QuantitySampleQuery(type: nil, limit: -1))
        }
    }

    @Test(arguments: StoreEngine.all) func samplesShareTheAnchorCounterWithRecords(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.observation("o1"))
        let afterRecord = try await f.store.currentAnchor()
        let saved = try await f.store.saveSamples([try MakeSample.glucose()]).saved
        #expect(saved.map(\.anchor) == [QueryAnchor(rawValue: afterRecord.rawValue + 1)])
        try await f.importJSON("b.json", Make.observation("o2"))
        #expect(try await f.store.currentAnchor() == QueryAnchor(rawValue: afterRecord.rawValue + 2))

        let samples = try await f.store.sampleChanges(AnchoredSampleQuery(type: nil, anchor: afterRecord))
        #expect(samples.added.map(\.sample.value) == ["5.40"])
        #expect(samples.anchor == (try await f.store.currentAnchor()))
        let records = try await f.store.changes(AnchoredQuery(type: nil, anchor: afterRecord))
        #expect(records.added.map(\.fhirResource.identifier) == ["o2"])
        let summary = try await f.store.changeSummary(since: afterRecord)
        #expect(summary.types == [.labResult])
        #expect(summary.sampleTypes == [.bloodGlucose])
    }

    @Test(arguments: StoreEngine.all) func pagesThroughSampleChangesAndDeletionsExactlyOnce(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let samples = try (0..<6).map { try MakeSample.glucose("\($0).0", at: Double($0) * 60) }
        _ = try await f.store.saveSamples(samples)
        #expect(try await f.store.deleteSamples(type: nil, predicate: .uuids([samples[1].uuid])) == 1)
        _ = try await f.store.saveSamples([try MakeSample.heartRate()])
        #expect(try await f.store.deleteSamples(type: .bloodGlucose, predicate: .uuids([samples[4].uuid])) == 1)

        var anchor: QueryAnchor?
        var added: [String] = []
        var deleted: [UUID] = []
        var pages = 0
        while true {
            let page = try await f.store.sampleChanges(AnchoredSampleQuery(type: .bloodGlucose, anchor: anchor, limit: 2))
            pages += 1
            #expect(page.added.count + page.deleted.count <= 2)
            added += page.added.map(\.sample.value)
            deleted += page.deleted.map(\.uuid)
            if page.added.isEmpty && page.deleted.isEmpty { break }
            anchor = page.anchor
        }
        #expect(added == ["0.0", "2.0", "3.0", "5.0"])
        #expect(deleted == [samples[1].uuid, samples[4].uuid])
        #expect(pages == 4)

        let tombstones = try await f.store.sampleChanges(AnchoredSampleQuery(type: nil, predicate: .source("meter-app"), anchor: nil))
        #expect(tombstones.deleted.map(\.type) == [.bloodGlucose, .bloodGlucose])
        #expect(tombstones.deleted.allSatisfy { $0.source == "meter-app" && $0.deletedDate == f.now })
    }

    @Test(arguments: StoreEngine.all) func aSampleSavedAgainAfterDeletionIsAddedAndNotAlsoDeleted(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let sample = try MakeSample.glucose()
        _ = try await f.store.saveSamples([sample])
        #expect(try await f.store.deleteSamples(type: nil, predicate: .source("meter-app")) == 1)
        #expect(try await f.store.samples(QuantitySampleQuery(type: nil)).isEmpty)
        _ = try await f.store.saveSamples([sample])
        let changes = try await f.store.sampleChanges(AnchoredSampleQuery(type: nil, anchor: nil))
        #expect(changes.added.map(\.sample.uuid) == [sample.uuid])
        #expect(changes.deleted.isEmpty)
        #expect(try await f.store.deleteSamples(type: .heartRate, predicate: nil) == 0)
    }

    @Test(arguments: StoreEngine.all) func savingTheSameSampleAgainChangesNothingAndAConflictFailsTheWholeSave(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let sample = try MakeSample.glucose()
        _ = try await f.store.saveSamples([sample])
        let anchor = try await f.store.currentAnchor()
        let again = try await f.store.saveSamples([sample])
        #expect(again.saved.isEmpty)
        #expect(again.unchanged == [sample.uuid])
        #expect(try await f.store.currentAnchor() == anchor)

        let changed = try QuantitySample(
            uuid: sample.uuid, type: .bloodGlucose, value: "5.4", unit: "mmol/L", startDate: sample.startDate, source: sample.source,
            device: sample.device)
        let innocent = try MakeSample.heartRate()
        await #expect(throws: HealthStoreError.sampleConflict(sample.uuid)) {
            try await f.store.saveSamples([innocent, changed])
        }
        // All or nothing: the innocent sample did not land either.
        #expect(try await f.store.samples(QuantitySampleQuery(type: nil)).map(\.sample.uuid) == [sample.uuid])
        #expect(try await f.store.currentAnchor() == anchor)
    }

    @Test(arguments: StoreEngine.all) func keepsSamplesWhoseSignatureIsMalformedAndMarksThem(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let key = DeviceSigningKey()
        let good = try MakeSample.glucose().signed(by: CMSSigner(key: key))
        let goodBase64 = try #require(good.digitalSignature)
        let goodDER = try #require(Data(base64Encoded: goodBase64))
        var ber = [UInt8](goodDER)
        ber[1] = 0x80
        ber += [0, 0]
        let signatures = [
            "garbage": "not base64 at all",
            "truncated": goodDER.prefix(goodDER.count - 7).base64EncodedString(),
            "indefinite": Data(ber).base64EncodedString(),
            "not-cms": Data([0x30, 0x03, 0x02, 0x01, 0x01]).base64EncodedString(),
        ]
        var samples = [good]
        for (name, signature) in signatures.sorted(by: { $0.key < $1.key }) {
            samples.append(try MakeSample.glucose(source: name).settingMetadata(SampleMetadataKey.digitalSignature, to: signature))
        }
        samples.append(try MakeSample.heartRate())
        let saved = try await f.store.saveSamples(samples).saved
        #expect(saved.count == samples.count)

        let stored = try await f.store.samples(QuantitySampleQuery(type: nil, sort: SampleSort(.added)))
        var statuses: [String: SampleSignatureStatus] = [:]
        for s in stored { statuses[s.sample.source.identifier] = s.signatureStatus }
        #expect(statuses["meter-app"] == .present)
        #expect(statuses["watch"] == .unsigned)
        for name in signatures.keys {
            guard case .malformed(let reason) = statuses[name] else {
                Issue.record("\(name): expected malformed, got \(String(describing: statuses[name]))")
                continue
            }
            #expect(!reason.isEmpty)
        }
        #expect(statuses["garbage"] == .malformed(reason: "signature: signature is not valid base64"))
        if case .malformed(let reason) = statuses["indefinite"] { #expect(reason.contains("indefinite")) }
        if case .malformed(let reason) = statuses["truncated"] { #expect(reason.contains("input ends before the value does")) }
    }

    @Test func sealsEverythingButTypeDatesAndKeys() async throws {
        let f = try await StoreFixture(sealer: ScramblingSealer())
        let key = DeviceSigningKey()
        let sample = try MakeSample.glucose().signed(by: CMSSigner(key: key))
        _ = try await f.store.saveSamples([sample])

        let queue = try DatabaseQueue(path: f.dir.path("store.sqlite"))
        let fetched = try queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM quantity_sample") }
        let row = try #require(fetched)
        for column in ["sample_uuid", "value", "unit", "device", "metadata", "signature_status"] {
            let blob: Data = try #require(row[column])
            #expect(blob.starts(with: Data("SEALED:".utf8)), "\(column) is not sealed")
        }
        #expect(row["quantity_type"] == "blood-glucose")
        #expect(row["start_date"] == MakeSample.start.timeIntervalSince1970)
        #expect(row["end_date"] == MakeSample.start.timeIntervalSince1970)
        let everything = String(decoding: try Data(contentsOf: f.dir.url.appendingPathComponent("store.sqlite-wal")), as: UTF8.self)
            + String(decoding: try Data(contentsOf: f.dir.url.appendingPathComponent("store.sqlite")), as: UTF8.self)
        let signature = try #require(sample.digitalSignature)
        for secret in ["GMC-0042-7781", "mmol/L", "5.40", String(signature.prefix(40)), sample.uuid.uuidString] {
            #expect(!everything.contains(secret), "\(secret) is stored in the clear")
        }

        let back = try #require(try await f.store.samples(QuantitySampleQuery(type: .bloodGlucose)).first)
        #expect(back.sample == sample)
        #expect(back.signatureStatus == .present)
        #expect(back.sample.verifySignature(with: CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey))) == .valid)
    }

    @Test func verifiesStoredSignaturesAndNamesTamperedFields() async throws {
        let f = try await StoreFixture()
        let key = DeviceSigningKey()
        let signer = try CMSSigner(key: key)
        let tampered = try MakeSample.glucose("5.40").signed(by: signer)
        let untouched = try MakeSample.glucose("6.20", at: 60).signed(by: signer, options: .init(includesSignedAttributes: false))
        let unsigned = try MakeSample.heartRate()
        _ = try await f.store.saveSamples([tampered, untouched, unsigned])

        let queue = try DatabaseQueue(path: f.dir.path("store.sqlite"))
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE quantity_sample SET value = ?, end_date = end_date + 1 WHERE identity = ?",
                arguments: [Data("6.10".utf8), SampleCoding.identity(tampered.uuid, PlainSealer())])
        }
        let verifier = CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey))
        var outcomes: [UUID: SampleVerificationOutcome?] = [:]
        for stored in try await f.store.samples(QuantitySampleQuery(type: nil)) {
            outcomes[stored.sample.uuid] = stored.sample.verifySignature(with: verifier)
        }
        #expect(outcomes[tampered.uuid] == .tampered(fields: ["value", "endDate"]))
        #expect(outcomes[untouched.uuid] == .valid)
        #expect(outcomes[unsigned.uuid] == .some(nil))
        let stranger = CMSVerifier(trusting: TrustedSigner(publicKey: DeviceSigningKey().publicKey))
        #expect(untouched.verifySignature(with: stranger) == .invalid(.signature(.signerNotFound)))
    }

    @Test func rejectsSamplesThatAreNotMeasurements() throws {
        let source = RecordSource(identifier: "s")
        let start = MakeSample.start
        #expect(throws: SampleValidationError.unitNotAllowed(unit: "kg", type: .bloodGlucose)) {
            try QuantitySample(type: .bloodGlucose, value: "5", unit: "kg", startDate: start, source: source)
        }
        #expect(throws: SampleValidationError.invalidValue("5,4", .unexpectedCharacter(offset: 1))) {
            try QuantitySample(type: .bloodGlucose, value: "5,4", unit: "mmol/L", startDate: start, source: source)
        }
        #expect(throws: SampleValidationError.endBeforeStart) {
            try QuantitySample(type: .heartRate, value: "60", unit: "/min", startDate: start, endDate: start.addingTimeInterval(-1), source: source)
        }
        #expect(throws: SampleValidationError.dateOutOfRange) {
            try QuantitySample(type: .heartRate, value: "60", unit: "/min", startDate: .distantFuture.addingTimeInterval(1e12), source: source)
        }
        #expect(throws: SampleValidationError.emptyDeviceIdentifier) {
            try QuantitySample(type: .heartRate, value: "60", unit: "/min", startDate: start, source: source, device: SampleDevice(identifier: ""))
        }
        #expect(throws: SigningError.invalidSample(.emptyField(.deviceIdentifier))) {
            try MakeSample.glucose(device: nil).signed(by: CMSSigner(key: DeviceSigningKey()))
        }
        // Every type accepts its own units and names itself both ways.
        for type in QuantityType.allCases {
            for unit in type.allowedUnits {
                #expect((try? QuantitySample(type: type, value: "1.0", unit: unit, startDate: start, source: source)) != nil)
            }
            #expect(QuantityType(name: type.name) == type)
            #expect(QuantityType(name: type.identifier) == type)
        }
    }

    @Test func keepsDatesToTheMillisecond() throws {
        let sample = try QuantitySample(
            type: .heartRate, value: "60", unit: "/min", startDate: Date(timeIntervalSince1970: 1_773_477_000.2504), source: RecordSource(identifier: "s"))
        #expect(sample.startDate == Date(timeIntervalSince1970: 1_773_477_000.25))
        #expect(sample.endDate == sample.startDate)
    }
}

@Suite struct SampleObserverTests {
    @Test(arguments: StoreEngine.all) func sampleObserversHearSampleChangesOnly(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let stream = f.store.observeSamples(types: [.bloodGlucose], after: try await f.store.currentAnchor(), pollInterval: .seconds(30))
        try await f.importJSON("a.json", Make.observation("o1"))
        _ = try await f.store.saveSamples([try MakeSample.heartRate()])
        _ = try await f.store.saveSamples([try MakeSample.glucose()])
        let change = try await firstElement(of: stream)
        #expect(change.sampleTypes == [.bloodGlucose])
        #expect(change.types.isEmpty)
        #expect(change.anchor == (try await f.store.currentAnchor()))
    }

    @Test(arguments: StoreEngine.all) func recordObserversDoNotHearSampleChanges(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let stream = f.store.observe(types: nil, after: try await f.store.currentAnchor(), pollInterval: .seconds(30))
        _ = try await f.store.saveSamples([try MakeSample.glucose()])
        try await f.importJSON("a.json", Make.immunization("i1"))
        let change = try await firstElement(of: stream)
        #expect(change.types == [.immunization])
        #expect(change.sampleTypes.isEmpty)
    }

    @Test(arguments: StoreEngine.all) func sampleObserversHearDeletionsFromAnotherStoreObject(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let sample = try MakeSample.glucose()
        _ = try await f.store.saveSamples([sample])
        let stream = f.store.observeSamples(after: try await f.store.currentAnchor(), pollInterval: .milliseconds(50))
        let other = try await f.reopen()
        #expect(try await other.deleteSamples(type: nil, predicate: .uuids([sample.uuid])) == 1)
        let change = try await firstElement(of: stream)
        #expect(change.sampleTypes == [.bloodGlucose])
    }
}

@Suite struct SampleMigrationTests {
    @Test func opensAStoreWrittenBeforeSamplesExistedAndKeepsItsRecords() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        do {
            // A store as the version without samples left it: only the v1 migration applied.
            try SQLiteSchema.migrate(path: path, upTo: "v1-records")
        }
        let old = try await SQLiteHealthStore(path: path)
        let report = await RecordImporter(store: old, options: .init(source: RecordSource(identifier: "lab")))
            .importPaths([try dir.write("o.json", Make.observation("o1"))])
        #expect(report.succeeded)
        _ = try await old.saveSamples([try MakeSample.glucose()])

        let queue = try DatabaseQueue(path: path)
        let applied = try await queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
        #expect(applied.starts(with: ["v1-records", "v2-samples"]))
        #expect(applied.last == SQLiteSchema.latestMigration)
        let reopened = try await SQLiteHealthStore(path: path)
        #expect(try await reopened.records(RecordQuery(type: nil)).map(\.fhirResource.identifier) == ["o1"])
        #expect(try await reopened.samples(QuantitySampleQuery(type: nil)).count == 1)
    }

    @Test func refusesAStoreFromANewerVersion() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        _ = try await SQLiteHealthStore(path: path)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')") }
        await #expect(throws: HealthStoreError.unknownSchema(migration: "newer than \(SQLiteSchema.latestMigration)")) { try await SQLiteHealthStore(path: path) }
    }
}
