import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStorePostgres
import SmartHealthCards
import Synchronization
import TestSupport
import Testing
import VerifiableRecords

/// Every statement the PostgreSQL engine sends outside migrations is kept to one person: the
/// property that lets the schema distribute on `person_id` (docs/scaling.md). A store is put
/// through every kind of read and write the engine has — imports and updates, each query and
/// predicate, anchored changes, samples, cards, consent, deletion, encryption and a key change
/// — on a database object of its own whose statements are all recorded and checked.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, "HEALTHRECORDS_POSTGRES_URL is not set"))
struct PersonScopedStatementTests {
    let dir = TemporaryDirectory()

    @Test func everyStatementOutsideMigrationsIsKeptToTheStoresPerson() async throws {
        let database = try PostgresHealthDatabase(url: try PostgresTestDatabase.url())
        try await database.migrate()
        let seen = Mutex<[SQLStatement]>([])
        database.observeStatements { statement in seen.withLock { $0.append(statement) } }
        let person = "scope-\(UUID().uuidString)"
        let store = try await PostgresHealthStore(database: database, person: person)

        try await workload(store)
        try await PostgresHealthStore.encrypt(database: database, person: person, credentials: .passphrase("pw"), kdf: .testing)
        let encrypted = try await PostgresHealthStore(database: database, person: person, credentials: .passphrase("pw"))
        #expect(try await encrypted.count(RecordQuery(type: nil)) > 0)
        try await encrypted.rotateKey(from: .passphrase("pw"), to: .passphrase("pw2"), kdf: .testing, date: Date())
        await database.shutdown()

        let statements = seen.withLock { $0 }
        let control: Set<String> = ["BEGIN", "COMMIT", "ROLLBACK"]
        var checked = 0
        for statement in statements {
            let text = statement.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if control.contains(text) || text.hasPrefix("BEGIN ISOLATION LEVEL") || text.hasPrefix("SET LOCAL lock_timeout") { continue }
            checked += 1
            let report = PersonScopeCheck.check(text, personParameter: 1)
            #expect(report.isScoped, "\(report.violations): \(text)")
            #expect(statement.values.first == .text(person), "the first value is not the store's person: \(text)")
        }
        // Every table of a person was read and written.
        let tables = Set(statements.flatMap { PersonScopeCheck.check($0.text, personParameter: 1).tables })
        #expect(tables.isSuperset(of: PersonScopeCheck.personTables), "never touched: \(PersonScopeCheck.personTables.subtracting(tables).sorted())")
        #expect(checked > 100)
    }

    private func workload(_ store: PostgresHealthStore) async throws {
        let bundle = Make.bundle([
            Make.observation("o1"), Make.observation("o2", value: "6.1"), Make.immunization("i1"), Make.record(.condition, id: "c1", text: "Asthma"),
            #"{"resourceType":"Patient","id":"p1","name":[{"family":"Roe"}]}"#,
        ])
        for (name, text) in [("a.json", bundle), ("b.json", Make.bundle([Make.observation("o1", value: "7.7")]))] {
            let report = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: "clinic"))).importPaths([try dir.write(name, text)])
            #expect(report.failed == 0)
        }
        let day = Date(timeIntervalSince1970: 1_600_000_000)
        let windows = [TypeWindow(ConsentCategory.clinical(.labResult), addedThrough: QueryAnchor(rawValue: 10)), TypeWindow(.clinical(.immunization), addedThrough: nil)]
        let predicates: [RecordPredicate] = [
            .fhirResourceType(.observation), .identity(source: "clinic", resourceType: .observation, identifier: "o1"), .source("clinic"),
            .addedDate(from: day, to: Date()), .clinicalDate(from: day, to: nil), .visible(windows), .visible([]),
        ]
        for p in predicates {
            _ = try await store.records(RecordQuery(type: nil, predicate: p, limit: 5, sort: RecordSort(.clinical, ascending: false)))
            _ = try await store.count(RecordQuery(type: .labResult, predicate: p))
            _ = try await store.changes(AnchoredQuery(type: nil, predicate: p, anchor: nil, limit: 10))
        }
        let identity = RecordIdentity(source: "clinic", resourceType: .observation, identifier: "o1")
        _ = try await store.resource(identity)
        _ = try await store.resource(identity, visible: windows)
        _ = try await store.contextResources(ofType: .patient, source: "clinic", visible: [TypeWindow(.context(.personalDetails), addedThrough: nil)])
        let day2 = day.addingTimeInterval(86_400)
        for q in [
            ResourceQuery(resourceTypes: [.observation], categories: [.clinical(.labResult)], release: .r4, limit: 5),
            ResourceQuery(
                resourceTypes: nil, excludedResourceTypes: [.patient], release: .dstu2, addedThrough: QueryAnchor(rawValue: 3),
                keys: [store.resourceKey(source: "clinic", resourceType: .observation, identifier: "o1")],
                clinicalDate: [DateCondition(anyOf: [.startsBefore(day), .endsAfter(day2)]), DateCondition(.endsAtOrBefore(day2))],
                addedDate: [DateCondition(.startsAtOrAfter(day))], sort: RecordSort(.clinical, ascending: false), limit: 2, offset: 1),
        ] {
            _ = try await store.resources(q, visible: windows, countingTotal: true)
            _ = try await store.resources(q, visible: nil, countingTotal: true)
        }
        _ = try await store.changeSummary(since: .initial)
        _ = try await store.sources()

        let samples = [try MakeSample.glucose(), try MakeSample.heartRate()]
        _ = try await store.saveSamples(samples)
        let sampleWindows = [TypeWindow(QuantityType.heartRate, addedThrough: nil)]
        for p: SamplePredicate in [.source("watch"), .startDate(from: day, to: nil), .addedDate(from: day, to: Date()), .uuids([samples[0].uuid]), .visible(sampleWindows)] {
            _ = try await store.samples(QuantitySampleQuery(type: nil, predicate: p, limit: 5))
            _ = try await store.sampleChanges(AnchoredSampleQuery(type: nil, predicate: p, anchor: nil))
        }
        _ = try await store.deleteSamples(type: .heartRate, predicate: .source("watch"))

        let card = VerifiableClinicalRecord(
            recordTypes: ["https://smarthealth.cards#immunization"], issuerIdentifier: "https://issuer.example",
            subject: .init(fullName: "Pat", dateOfBirth: nil), issuedDate: day, relevantDate: day, expirationDate: nil, itemNames: ["Vaccine"],
            dataRepresentation: Data("header.payload.signature".utf8), fhirResourceTypes: ["Immunization"])
        _ = try await store.saveVerifiableRecords([(card, .verified(trusted: true))])
        _ = try await store.saveVerifiableRecords([(card, .unverified(codes: ["x"]))])

        let consent = ConsentManager(store: store)
        let creds = try await consent.register(
            name: "App", purpose: "Charts", privacyPolicyURL: URL(string: "https://app.example/privacy")!,
            requestedTypes: [.clinical(.labResult), .clinical(.immunization), .quantity(.bloodGlucose), .context(.personalDetails)])
        _ = try await consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult), .quantity(.bloodGlucose)], newData: .ask))
        let app = try await consent.view(appID: creds.appID)
        _ = try await app.records(RecordQuery(type: nil))
        _ = try await app.changes(AnchoredQuery(type: nil, anchor: nil))
        _ = try await app.samples(QuantitySampleQuery(type: nil))
        _ = try await app.resources(ResourceQuery(resourceTypes: nil, release: .r4, limit: 3, offset: 1), countingTotal: true)
        _ = try await consent.approveNewData(appID: creds.appID)
        _ = try await consent.auditLog(appID: creds.appID, newestFirst: 10)
        _ = try await consent.auditLog()
        let request = VerifiableRecordRequest(appID: creds.appID, recordTypes: card.recordTypes, relevantDate: nil)
        let offered = try await consent.offeredCards(for: request)
        let token = try await consent.shareCards(request, picked: offered.map(\.identifier))
        _ = try await app.takeSharedCards(token: token)
        _ = try await consent.shareCards(request, picked: [])
        // Credentials, medication picks and notes, settings and provider connections.
        let now = Date()
        let credential = StoredCredential(
            kind: .accessToken, digest: Data("digest".utf8), appID: creds.appID, family: Data("family".utf8), expires: now.addingTimeInterval(60), details: Data())
        _ = try await store.insertCredential(credential)
        _ = try await store.credential(.accessToken, digest: credential.digest)
        _ = try await store.credentialWithApp(.accessToken, digest: credential.digest)
        _ = try await store.useCredential(.accessToken, digest: credential.digest)
        _ = try await store.deleteCredential(.accessToken, digest: credential.digest)
        _ = try await store.deleteCredentials(family: credential.family)
        _ = try await store.deleteCredentials(appID: creds.appID)
        _ = try await store.deleteCredentials(expiredBefore: now)
        try await store.saveMedicationChoice(appID: creds.appID, entries: ["m1"])
        _ = try await store.medicationChoice(appID: creds.appID)
        try await store.saveMedicationNote(MedicationNote(nickname: "Blue pill"), for: "m1")
        _ = try await store.medicationNotes()
        try await store.saveSetting("access-review", value: "90 on")
        _ = try await store.setting("access-review")
        _ = try await store.oldestConfirmation()
        let provider = ProviderConnection(
            id: "clinic", name: "Clinic", fhirBase: "https://fhir.example.org/r4", clientID: "c", client: .secret("s"), scope: "patient/*.rs",
            access: .signIn, allowLoopback: false, added: now)
        try await store.saveProvider(provider)
        try await store.saveFinishedSync(provider)
        try await store.saveSyncCheckpoint(Data("{}".utf8), providerID: "clinic")
        _ = try await store.syncCheckpoint(providerID: "clinic")
        _ = try await store.providers()
        _ = try await store.provider(id: "clinic")
        let passkey = StoredPasskey(credentialID: Data([1, 2, 3]), publicKey: Data([4]), signCount: 0, name: "Laptop", created: now, backupEligible: true)
        _ = try await store.insertPasskey(passkey)
        _ = try await store.passkeys()
        _ = try await store.passkey(credentialID: passkey.credentialID)
        _ = try await store.recordPasskeyUse(credentialID: passkey.credentialID, signCount: 1, at: now)
        _ = try await store.renamePasskey(credentialID: passkey.credentialID, to: "Phone")
        try await store.replaceRecoveryCodes(digests: [Data([9]), Data([8])])
        _ = try await store.useRecoveryCode(digest: Data([9]))
        _ = try await store.recoveryCodesLeft()
        try await store.saveHouseholdMember(HouseholdMember(id: "p-00000000000000aa", name: "Ana", role: .proxy, since: Date()))
        _ = try await store.householdMembers()
        try await store.recordProxyAction(ProxyAction(actorID: "p-00000000000000aa", actorName: "Ana", action: "GET /", date: Date()))
        _ = try await store.proxyActions(limit: 5)
        _ = try await store.removeHouseholdMember(id: "p-00000000000000aa", role: .proxy)
        _ = try await store.countCredentials(.cardRequest, appID: "x", liveAt: Date())
        _ = try await store.replaceCredentialDetails(.cardRequest, digest: Data([1]), from: Data(), to: Data([2]))
        _ = try await store.deleteCredentials(.cardRequest, appID: "x")
        _ = try await consent.revoke(appID: creds.appID)

        _ = try await store.delete(source: "clinic", resourceType: .observation, identifier: "o2")
        _ = try await store.delete(source: "clinic", resourceType: .immunization, identifier: nil)
        if let stored = try await store.verifiableRecords(VerifiableRecordQuery(recordTypes: [])).first {
            _ = try await store.deleteVerifiableRecord(identifier: stored.identifier)
        }
        _ = try await store.saveVerifiableRecords([(card, .verified(trusted: true))])

        // Hosted links: every read and write of them, left in place for the re-sealing.
        for (handle, longTerm) in [("aaaaaaaaaaaaaaaa", true), ("bbbbbbbbbbbbbbbb", false)] {
            let link = HostedLink(
                handle: handle, longTerm: longTerm, passcode: !longTerm, direct: false, label: "l", content: HostedLinkContent(summary: true), created: now,
                expires: now.addingTimeInterval(60), revoked: nil, ended: false, contentAnchor: 1, passcodeLimit: longTerm ? 0 : 3, passcodeFailures: 0,
                files: [HostedLinkFileInfo(ordinal: 0, contentType: "application/fhir+json", updated: now, byteCount: 1)])
            try await store.insertHostedLink(NewHostedLink(
                link: link, lookupDigest: Data(handle.utf8), passcode: longTerm ? nil : try LinkPasscode.make("pass", kdf: .testing),
                longTermSecret: longTerm ? Data("k".utf8) : nil, jwes: [Data("j".utf8)]))
        }
        _ = try await store.hostedLinks(includeEnded: true)
        _ = try await store.hostedLink(lookupDigest: Data("aaaaaaaaaaaaaaaa".utf8))
        _ = try await store.hostedLinkFile(handle: "aaaaaaaaaaaaaaaa", ordinal: 0)
        _ = try await store.hostedLinkStatus(lookupDigest: Data("bbbbbbbbbbbbbbbb".utf8))
        _ = try await store.hostedLinkFile(handle: "bbbbbbbbbbbbbbbb", ordinal: 0)
        _ = try await store.longTermSecret(handle: "aaaaaaaaaaaaaaaa")
        _ = try await store.replaceHostedLinkFiles(handle: "aaaaaaaaaaaaaaaa", fromAnchor: 1, toAnchor: 2, jwes: [0: Data("k".utf8)], date: now)
        _ = try await store.reservePasscodeAttempt(handle: "bbbbbbbbbbbbbbbb", now: now)
        _ = try await store.settlePasscodeAttempt(handle: "bbbbbbbbbbbbbbbb", correct: false)
        try await store.issueLinkLocations([NewLinkLocation(tokenDigest: Data("t".utf8), handle: "aaaaaaaaaaaaaaaa", ordinal: 0, expires: now.addingTimeInterval(60), recipient: "r")])
        _ = try await store.useLinkLocation(tokenDigest: Data("t".utf8), now: now)
        try await store.appendLinkAccess(LinkAccess(handle: "aaaaaaaaaaaaaaaa", date: now, recipient: "r", event: .manifest, status: 200))
        _ = try await store.linkAccessLog(handle: "aaaaaaaaaaaaaaaa", newestFirst: 5)
        _ = try await store.endExpiredHostedLinks(at: now)
        try await store.insertHostedLink(NewHostedLink(
            link: HostedLink(
                handle: "cccccccccccccccc", longTerm: false, passcode: false, direct: true, label: nil, content: HostedLinkContent(checkIn: true), created: now,
                expires: now.addingTimeInterval(60), revoked: nil, ended: false, contentAnchor: 1, passcodeLimit: 0, passcodeFailures: 0, files: []),
            lookupDigest: Data("c".utf8), passcode: nil, longTermSecret: nil, jwes: []))
        _ = try await store.revokeHostedLink(handle: "cccccccccccccccc", at: now)
    }
}
