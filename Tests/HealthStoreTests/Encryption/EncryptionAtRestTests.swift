import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import SmartHealthCards
import TestSupport
import Testing
import VerifiableRecords

/// Encryption at rest on SQLite: nothing identifying in the files, locked stores refuse,
/// wrong secrets fail cleanly, rotation keeps data, plain stores convert, deletes leave nothing.
@Suite struct EncryptionAtRestTests {
    let dir = TemporaryDirectory()

    func bytes(of path: String) throws -> Data {
        var all = try Data(contentsOf: URL(fileURLWithPath: path))
        if let wal = FileManager.default.contents(atPath: path + "-wal") { all += wal }
        return all
    }

    func contains(_ haystack: Data, _ needle: String) -> Bool { haystack.range(of: Data(needle.utf8)) != nil }

    /// Names of the Synthea patients (given and family) and the display names of their conditions.
    func secrets(in store: any HealthStore) async throws -> [String] {
        var names: [String] = []
        for p in try await store.contextResources(ofType: .patient, source: nil) {
            for n in try p.resource.json().list("name").compactMap(\.objectValue) {
                names += [n.string("family")].compactMap { $0 } + n.list("given").compactMap(\.stringValue)
            }
        }
        names += try await store.records(RecordQuery(type: .condition)).map(\.displayName)
        // At least 5 bytes: any 4-byte string turns up by chance in ~20 MB of ciphertext about once
        // in 200 runs (20e6 / 2^32), which made this test fail now and then on "Mary"; 5 bytes is
        // once in 50,000.
        return Array(Set(names.filter { $0.utf8.count >= 5 }))
    }

    @Test func syntheaLeavesNoNameConditionOrJSONInTheFilesAndUnlocksAgain() async throws {
        let path = dir.path("enc.sqlite")
        let synthea = Corpus.url("data/fhir/synthea").path
        let store = try await SQLiteHealthStore(path: path, credentials: .passphrase("correct horse battery staple"), kdf: .testing)
        let report = await RecordImporter(store: store).importPaths([synthea])
        #expect(report.failed == 0)
        let secrets = try await secrets(in: store)
        #expect(secrets.count > (Corpus.isFull ? 50 : 8), "\(secrets.count) secrets")
        let files = try bytes(of: path)
        for s in secrets { #expect(!contains(files, s), "\(s) is in the store files") }
        for marker in [#""resourceType""#, "\"Patient\"", "http://loinc.org", "Castellanos"] { #expect(!contains(files, marker), "\(marker)") }

        // The same store, opened again with its passphrase, gives the right records back.
        let reopened = try await SQLiteHealthStore(path: path, credentials: .passphrase("correct horse battery staple"))
        #expect(try await reopened.count(RecordQuery(type: .labResult)) == (Corpus.isFull ? 933 : 73))
        #expect(try await reopened.count(RecordQuery(type: nil)) == report.totals.inserted)
        let file = Corpus.files("data/fhir/synthea", extensions: ["json"])[0]
        let sourceRecords = try await reopened.records(RecordQuery(type: .condition, predicate: .source(file.lastPathComponent)))
        #expect(!sourceRecords.isEmpty)
        let again = await RecordImporter(store: reopened).importPaths([synthea])
        #expect(again.totals.unchanged == report.totals.inserted && again.totals.inserted == 0)
    }

    @Test func anEUDCCsPayloadAndQRTextAreSealedAndComeBackWhole() async throws {
        let path = dir.path("dcc.sqlite")
        let store = try await SQLiteHealthStore(path: path, credentials: .passphrase("correct horse battery staple"), kdf: .testing)
        let payload = try JSONReader().read(Data(#"{"ver":"1.3.0","nam":{"fn":"Zwiebelfisch","fnt":"ZWIEBELFISCH"},"dob":"1964-08-12","v":[{"ci":"URN:UVCI:01DE/SECRETMARKER#W"}]}"#.utf8))
        let day = Date(timeIntervalSince1970: 1_622_246_400)
        let record = VerifiableClinicalRecord(
            recordTypes: ["https://smarthealth.cards#immunization", "https://smarthealth.cards#covid19"], issuerIdentifier: "DE",
            subject: .init(fullName: "Erika Zwiebelfisch", dateOfBirth: nil), issuedDate: day, relevantDate: day, expirationDate: nil,
            itemNames: ["COVID-19 vaccination: Comirnaty"], dataRepresentation: Data("HC1:QRTEXTMARKER".utf8), fhirResourceTypes: [],
            sourceType: .euDigitalCOVIDCertificate, decodedPayload: payload)
        #expect(try await store.saveVerifiableRecords([(record, .verified(trusted: true))]).inserted == 1)
        // The same bytes as a card would be another record: identities are kept apart by kind.
        let card = VerifiableClinicalRecord(
            recordTypes: record.recordTypes, issuerIdentifier: "DE", subject: record.subject, issuedDate: day, relevantDate: day,
            expirationDate: nil, itemNames: [], dataRepresentation: record.dataRepresentation, fhirResourceTypes: [])
        #expect(try await store.saveVerifiableRecords([(card, .verified(trusted: true))]).inserted == 1)
        let files = try bytes(of: path)
        for marker in ["Zwiebelfisch", "SECRETMARKER", "QRTEXTMARKER", "Comirnaty", "EUDigitalCOVIDCertificate"] { #expect(!contains(files, marker), "\(marker)") }
        let reopened = try await SQLiteHealthStore(path: path, credentials: .passphrase("correct horse battery staple"))
        let back = try await reopened.verifiableRecords(VerifiableRecordQuery(sourceTypes: [.euDigitalCOVIDCertificate]))
        #expect(back.map(\.record) == [record])
        #expect(try await reopened.verifiableRecords(VerifiableRecordQuery(sourceTypes: [.smartHealthCard])).map(\.record.sourceType) == [.smartHealthCard])
    }

    @Test func aLockedStoreRefusesEveryRead() async throws {
        let path = dir.path("locked.sqlite")
        do {
            let store = try await SQLiteHealthStore(path: path, credentials: .keyFile(Data(repeating: 1, count: 32)))
            let src = try dir.write("s", Make.record(.condition, id: "c1"))
            #expect(await RecordImporter(store: store).importPaths([src]).failed == 0)
        }
        for locked in [try await SQLiteHealthStore(path: path), try await SQLiteHealthStore(path: path, credentials: nil)] {
            #expect(locked.isLocked)
            let e = HealthStoreError.storeLocked(path: path)
            await #expect(throws: e) { try await locked.records(RecordQuery(type: nil)) }
            await #expect(throws: e) { try await locked.count(RecordQuery(type: nil)) }
            await #expect(throws: e) { try await locked.changes(AnchoredQuery(type: nil, anchor: nil)) }
            await #expect(throws: e) { try await locked.currentAnchor() }
            await #expect(throws: e) { try await locked.sources() }
            await #expect(throws: e) { try await locked.resource(RecordIdentity(source: "s", resourceType: .patient, identifier: "p")) }
            await #expect(throws: e) { try await locked.samples(QuantitySampleQuery(type: nil)) }
            await #expect(throws: e) { try await locked.verifiableRecords(VerifiableRecordQuery()) }
            await #expect(throws: e) { try await locked.apps() }
            await #expect(throws: e) { try await locked.delete(source: "s", resourceType: nil, identifier: nil) }
            await #expect(throws: e) { try await ConsentManager(store: locked).auditLog() }
        }
    }

    @Test func wrongSecretsFailCleanlyAndRotationKeepsTheData() async throws {
        let path = dir.path("rotate.sqlite")
        let f = try await SQLiteHealthStore(path: path, credentials: .passphrase("first"), kdf: .testing)
        let src = try dir.write("c.json", Make.record(.condition, id: "c1", text: "Rare condition"))
        #expect(await RecordImporter(store: f).importPaths([src]).failed == 0)

        await #expect(throws: HealthStoreError.wrongPassphrase(path: path)) { try await SQLiteHealthStore(path: path, credentials: .passphrase("second")) }
        await #expect(throws: HealthStoreError.wrongPassphrase(path: path)) { try await SQLiteHealthStore(path: path, credentials: .keyFile(Data(count: 32))) }
        await #expect(throws: HealthStoreError.wrongPassphrase(path: path)) {
            try await SQLiteHealthStore(path: path, credentials: .dataKey(.init(size: .bits256)))
        }

        let keyFile = Data((0..<48).map { UInt8($0) })
        try await f.rotateKey(from: .passphrase("first"), to: .keyFile(keyFile), date: Date())
        await #expect(throws: HealthStoreError.wrongPassphrase(path: path)) { try await SQLiteHealthStore(path: path, credentials: .passphrase("first")) }
        let byFile = try await SQLiteHealthStore(path: path, credentials: .keyFile(keyFile))
        #expect(try await byFile.records(RecordQuery(type: .condition)).map(\.displayName) == ["Rare condition"])
        await #expect(throws: HealthStoreError.wrongPassphrase(path: path)) {
            try await byFile.rotateKey(from: .passphrase("first"), to: .passphrase("third"), date: Date())
        }
        try await byFile.rotateKey(from: .keyFile(keyFile), to: .passphrase("third"), kdf: .testing, date: Date())
        let third = try await SQLiteHealthStore(path: path, credentials: .passphrase("third"))
        #expect(try await third.count(RecordQuery(type: .condition)) == 1)
        // The data key never changed: the first store object still reads.
        #expect(try await f.count(RecordQuery(type: .condition)) == 1)
    }

    @Test func aPlainStoreConvertsInPlaceAndKeepsWorking() async throws {
        let path = dir.path("plain.sqlite")
        let plain = try await SQLiteHealthStore(path: path)
        let src = try dir.write("Jane_Roe.json", Make.bundle([
            Make.record(.condition, id: "c1", text: "Unusual diagnosis"), #"{"resourceType":"Patient","id":"p1","name":[{"family":"Roevinski"}]}"#,
        ]))
        #expect(await RecordImporter(store: plain).importPaths([src]).failed == 0)
        _ = try await plain.saveSamples([MakeSample.glucose()])
        #expect(contains(try bytes(of: path), "Unusual diagnosis"))

        await #expect(throws: HealthStoreError.notEncrypted(path: path)) { try await SQLiteHealthStore(path: path, credentials: .passphrase("pw")) }
        try await SQLiteHealthStore.encrypt(path: path, credentials: .passphrase("pw"), kdf: .testing)
        await #expect(throws: HealthStoreError.alreadyEncrypted(path: path)) { try await SQLiteHealthStore.encrypt(path: path, credentials: .passphrase("pw")) }
        let files = try bytes(of: path)
        for s in ["Unusual diagnosis", "Roevinski", "Jane_Roe", "resourceType", "5.40", "GMC-0042"] { #expect(!contains(files, s), "\(s)") }

        #expect(try await SQLiteHealthStore(path: path).isLocked)
        let store = try await SQLiteHealthStore(path: path, credentials: .passphrase("pw"))
        #expect(try await store.records(RecordQuery(type: .condition, predicate: .source("Jane_Roe.json"))).map(\.displayName) == ["Unusual diagnosis"])
        #expect(try await store.resource(RecordIdentity(source: "Jane_Roe.json", resourceType: .patient, identifier: "p1")) != nil)
        #expect(try await store.samples(QuantitySampleQuery(type: .bloodGlucose)).map(\.sample.value) == ["5.40"])
        let again = await RecordImporter(store: store).importPaths([src])
        #expect(again.totals.unchanged == 1 && again.totals.inserted == 0)
    }

    @Test func deleteLeavesNoPlaintextInTheFiles() async throws {
        let path = dir.path("delete.sqlite")
        let store = try await SQLiteHealthStore(path: path)
        let src = try dir.write("x.json", Make.bundle([Make.record(.condition, id: "c1", text: "Zebra-marker-condition"), Make.record(.allergy, id: "a1")]))
        #expect(await RecordImporter(store: store).importPaths([src]).failed == 0)
        #expect(contains(try bytes(of: path), "Zebra-marker-condition"))
        #expect(try await store.delete(source: "x.json", resourceType: "Condition", identifier: "c1") == 1)
        #expect(!contains(try bytes(of: path), "Zebra-marker-condition"))
        #expect(try await store.count(RecordQuery(type: .allergy)) == 1)
    }

    @Test func theSealerHidesEqualValuesAndRejectsTampering() throws {
        let a = AESGCMSealer(dataKey: .init(size: .bits256))
        let b = AESGCMSealer(dataKey: .init(size: .bits256))
        let value = Data("Asthma".utf8)
        let s1 = try a.seal(value)
        #expect(s1 != (try a.seal(value)))
        #expect(try a.open(s1) == value)
        #expect(throws: HealthStoreError.unreadableSealedValue) { try b.open(s1) }
        var tampered = s1
        tampered[tampered.count - 1] ^= 1
        #expect(throws: HealthStoreError.unreadableSealedValue) { try a.open(tampered) }
        #expect(a.identityKey(["s", "Condition", "c1"]) == a.identityKey(["s", "Condition", "c1"]))
        #expect(a.identityKey(["s", "Condition", "c1"]) != b.identityKey(["s", "Condition", "c1"]))
        #expect(a.identityKey(["s", "Condition", "c1"]) != PlainSealer().identityKey(["s", "Condition", "c1"]))
        #expect(a.contentDigest(value) != PlainSealer().contentDigest(value))
    }
}
