import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import SmartHealthCards
import TestSupport
import Testing
import VerifiableRecords

/// Registration, required types, secrets, samples as grantable types, observers and one-time
/// card sharing, on every engine.
@Suite struct ConsentTests {
    static let privacy = URL(string: "https://example.org/privacy")!
    static let three: Set<HealthDataType> = [.clinical(.condition), .clinical(.labResult), .clinical(.immunization)]

    @Test(arguments: StoreEngine.all)
    func registrationIsCheckedAndSecretsAreStoredAsDigests(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        await #expect(throws: ConsentError.invalidRegistration("an app must require no types or at least 3; it names 2")) {
            try await w.consent.register(
                name: "A", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: Self.three,
                requiredTypes: [.clinical(.condition), .clinical(.labResult)])
        }
        await #expect(throws: ConsentError.self) {
            try await w.consent.register(name: " ", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: Self.three)
        }
        await #expect(throws: ConsentError.self) {
            try await w.consent.register(name: "A", purpose: "p", privacyPolicyURL: URL(string: "ftp://x/y")!, requestedTypes: Self.three)
        }
        let creds = try await w.consent.register(
            name: "Tracker", purpose: "Charts", privacyPolicyURL: Self.privacy, requestedTypes: Self.three, requiredTypes: Self.three)
        let stored = try await w.consent.app(creds.appID)
        #expect(stored.registration.name == "Tracker" && stored.registration.requiredTypes == Self.three)
        #expect(stored.secretDigest != Data(creds.secret.utf8))
        #expect(stored.verify(secret: creds.secret))
        #expect(!stored.verify(secret: creds.secret + "x"))
        _ = try await w.consent.authenticate(appID: creds.appID, secret: creds.secret)
        await #expect(throws: ConsentError.invalidAppSecret) { try await w.consent.authenticate(appID: creds.appID, secret: "nope") }
        await #expect(throws: ConsentError.appNotFound("missing")) { try await w.consent.view(appID: "missing") }
        #expect(try await w.consent.apps().map(\.registration.id) == [creds.appID])
        // Review 2, finding 3: a JWKS URL must be https (plain http only on this machine).
        let redirect = [URL(string: "https://app.example/cb")!]
        for url in ["http://keys.example/jwks.json", "http://10.0.0.5/jwks.json", "https://user:pw@keys.example/jwks.json", "ftp://keys.example/jwks.json"] {
            await #expect(throws: ConsentError.self, "\(url)") {
                try await w.consent.register(
                    name: "K", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: Self.three, redirectURIs: redirect,
                    clientType: .confidentialAsymmetric, jwksURI: URL(string: url)!)
            }
        }
        for url in ["https://keys.example/jwks.json", "http://127.0.0.1:8443/jwks.json"] {
            _ = try await w.consent.register(
                name: "K", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: Self.three, redirectURIs: redirect,
                clientType: .confidentialAsymmetric, jwksURI: URL(string: url)!)
        }
    }

    @Test(arguments: StoreEngine.all)
    func denyingARequiredTypeFailsWithoutSayingWhich(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let requested = Self.three.union([.clinical(.allergy)])
        let creds = try await w.consent.register(
            name: "T", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: requested, requiredTypes: Self.three)
        await #expect(throws: ConsentError.typeNotRequested(.clinical(.coverage))) {
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.coverage)]))
        }
        await #expect(throws: ConsentError.conflictingDecision(.clinical(.allergy))) {
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.allergy)], deny: [.clinical(.allergy)]))
        }
        let view = try await w.consent.view(appID: creds.appID)
        try await view.checkRequiredAuthorization()
        await #expect(throws: ConsentError.requiredAuthorizationDenied) {
            try await w.consent.decide(
                appID: creds.appID, AuthorizationDecision(allow: [.clinical(.condition), .clinical(.allergy)], deny: [.clinical(.labResult)]))
        }
        #expect(ConsentError.requiredAuthorizationDenied.description == "required authorization denied")
        await #expect(throws: ConsentError.requiredAuthorizationDenied) { try await view.checkRequiredAuthorization() }
        // The decision stands: the allowed types are readable.
        try await w.importResources([Make.record(.allergy, id: "a1")])
        #expect(try await w.consent.grants(appID: creds.appID).count == 3)
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: Self.three, newData: .share))
        try await view.checkRequiredAuthorization()
        #expect(try await view.requestStatus(for: Self.three) == .unnecessary)
        #expect(try await view.requestStatus(for: [.clinical(.allergy)]) == .shouldRequest)
    }

    @Test(arguments: StoreEngine.all)
    func quantityTypesAreGrantedLikeClinicalTypes(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        _ = try await w.store.saveSamples([try MakeSample.glucose(), try MakeSample.heartRate()])
        let creds = try await w.consent.register(
            name: "Glucose", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: [.quantity(.bloodGlucose), .quantity(.heartRate)])
        let view = try await w.consent.view(appID: creds.appID)
        #expect(try await view.samples(QuantitySampleQuery(type: nil)).isEmpty)
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.quantity(.bloodGlucose)], deny: [.quantity(.heartRate)]))
        #expect(try await view.samples(QuantitySampleQuery(type: nil)).map(\.sample.type) == [.bloodGlucose])
        #expect(try await view.samples(QuantitySampleQuery(type: .heartRate)).isEmpty)
        _ = try await w.store.saveSamples([try MakeSample.glucose("6.1", at: 60)])
        // "Ask" is the default: the new reading waits.
        #expect(try await view.samples(QuantitySampleQuery(type: .bloodGlucose)).map(\.sample.value) == ["5.40"])
        #expect(try await view.requestStatus(for: [.quantity(.bloodGlucose)]) == .shouldRequest)
        let first = try await view.sampleChanges(AnchoredSampleQuery(type: nil, anchor: nil))
        #expect(first.added.map(\.sample.value) == ["5.40"])
        try await w.consent.approveNewData(appID: creds.appID)
        let next = try await view.sampleChanges(AnchoredSampleQuery(type: nil, anchor: first.anchor))
        #expect(next.added.map(\.sample.value).contains("6.1"))
        #expect(try await view.sources().map(\.identifier) == ["meter-app"])
    }

    @Test(arguments: StoreEngine.all)
    func observersNotifyOnlyVisibleChanges(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let creds = try await w.consent.register(
            name: "O", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: [.clinical(.condition), .clinical(.allergy)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.allergy)], deny: [.clinical(.condition)], newData: .share))
        let view = try await w.consent.view(appID: creds.appID)
        let start = try await view.currentAnchor()
        var notices = view.observe(after: start, pollInterval: .milliseconds(50)).makeAsyncIterator()
        try await w.importResources([Make.record(.condition, id: "c1")])
        try await w.importResources([Make.record(.allergy, id: "a1")])
        let notice = try #require(await notices.next())
        #expect(notice.types == [.allergy])
        #expect(notice.anchor == (try await view.currentAnchor()))
        #expect(try await w.consent.auditLog(appID: creds.appID).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func cardsAreSharedOncePickByPick(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        func card(_ n: Int, types: [String], relevant: Date) -> (VerifiableClinicalRecord, CardStatus) {
            (VerifiableClinicalRecord(
                recordTypes: types, issuerIdentifier: "https://issuer.example", subject: .init(fullName: "Pat \(n)", dateOfBirth: nil),
                issuedDate: relevant, relevantDate: relevant, expirationDate: nil, itemNames: ["Vaccine \(n)"],
                dataRepresentation: Data("header.payload\(n).signature".utf8), fhirResourceTypes: ["Immunization"]), .verified(trusted: true))
        }
        let imm = "https://smarthealth.cards#immunization"
        let lab = "https://smarthealth.cards#laboratory"
        let day = Date(timeIntervalSince1970: 1_600_000_000)
        _ = try await w.store.saveVerifiableRecords([
            card(1, types: [imm], relevant: day), card(2, types: [imm], relevant: day.addingTimeInterval(86_400 * 30)),
            card(3, types: [lab], relevant: day),
        ])
        let creds = try await w.consent.register(name: "Venue", purpose: "Entry", privacyPolicyURL: Self.privacy, requestedTypes: Self.three)
        let app = try await w.consent.view(appID: creds.appID)
        let request = VerifiableRecordRequest(appID: creds.appID, recordTypes: [imm], relevantDate: DateInterval(start: day.addingTimeInterval(-1), duration: 86_400 * 40))
        let offered = try await w.consent.offeredCards(for: request)
        #expect(offered.map(\.record.subject.fullName) == ["Pat 1", "Pat 2"])
        await #expect(throws: ConsentError.self) { try await w.consent.shareCards(request, picked: ["0000"]) }
        let token = try await w.consent.shareCards(request, picked: [offered[1].identifier])
        #expect(try await app.takeSharedCards(token: token).map(\.record.subject.fullName) == ["Pat 2"])
        await #expect(throws: ConsentError.invalidShareToken) { try await app.takeSharedCards(token: token) }
        // Declining is an empty answer, indistinguishable from having no card.
        let none = try await w.consent.shareCards(request, picked: [])
        #expect(try await app.takeSharedCards(token: none).isEmpty)
        #expect(try await w.consent.auditLog(appID: creds.appID).map(\.count) == [1, 0])
    }
}
