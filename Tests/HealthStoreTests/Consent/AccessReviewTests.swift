import ClinicalRecords
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// Access reviews on every engine: due after the person's interval, kept, narrowed (never
/// widened), and — when the person turned it on — unconfirmed access ending by itself, written
/// to the audit log, while the app that was kept reads on.
@Suite struct AccessReviewTests {
    static let types: Set<HealthDataType> = [.clinical(.labResult), .clinical(.condition)]

    func world(_ engine: StoreEngine) async throws -> (ConsentWorld, kept: String, ignored: String, denied: String) {
        let w = try await ConsentWorld(engine)
        try await w.importResources([Make.record(.labResult, id: "lab"), Make.record(.condition, id: "condition")])
        var ids: [String] = []
        for name in ["Kept", "Ignored", "Denied"] {
            let creds = try await w.consent.register(
                name: name, purpose: "Testing", privacyPolicyURL: URL(string: "https://example.org/privacy")!, requestedTypes: Self.types)
            let decision = name == "Denied" ? AuthorizationDecision(allow: [], deny: Self.types) : AuthorizationDecision(allow: Self.types, newData: .share)
            try await w.consent.decide(appID: creds.appID, decision)
            ids.append(creds.appID)
        }
        return (w, ids[0], ids[1], ids[2])
    }

    @Test(arguments: StoreEngine.all)
    func aReviewFallsDueKeepsAndNarrows(engine: StoreEngine) async throws {
        let (w, kept, ignored, denied) = try await world(engine)
        #expect(try await w.consent.reviewSettings() == .standard)
        #expect(try await w.consent.reviewIsDue() == false)
        let review = try await w.consent.accessReview()
        // Only apps that can read are reviewed.
        #expect(Set(review.map(\.app.id)) == [kept, ignored] && !review.contains { $0.app.id == denied })
        _ = try await w.consent.view(appID: kept).then { try await $0.records(RecordQuery(type: .labResult)) }
        w.advance(90 * 86_400)
        #expect(try await w.consent.reviewIsDue())
        let due = try await w.consent.accessReview()
        #expect(due.allSatisfy { $0.isDue(at: w.store.clock.now) })
        let keptItem = try #require(due.first { $0.app.id == kept })
        #expect(keptItem.lastRead?.operation == "records" && keptItem.readSinceConfirmed == [.clinical(.labResult)])
        #expect(due.first { $0.app.id == ignored }?.lastRead == nil)

        try await w.consent.keepAccess(appID: kept)
        #expect(try await w.consent.accessReview().first { $0.app.id == kept }?.isDue(at: w.store.clock.now) == false)
        #expect(try await w.consent.reviewIsDue(), "the other app is still due")
        #expect(try await w.consent.narrowHistory(appID: ignored, to: .days(30)!) == 2)
        #expect(try await w.consent.reviewIsDue() == false)
        // Narrowing never widens: 1y over 30d leaves 30d.
        #expect(try await w.consent.narrowHistory(appID: ignored, to: .days(365)!) == 0)
        #expect(try await w.consent.grants(appID: ignored).map(\.history) == [.days(30)!, .days(30)!])
        // The records (dated 2020) are outside 30 days now.
        #expect(try await w.consent.view(appID: ignored).records(RecordQuery(type: nil)).isEmpty)
        #expect(try await w.consent.view(appID: kept).records(RecordQuery(type: nil)).count == 2)
        await #expect(throws: ConsentError.appNotFound("nope")) { try await w.consent.keepAccess(appID: "nope") }
    }

    @Test(arguments: StoreEngine.all)
    func unconfirmedAccessEndsOnlyWhenThePersonSaidSo(engine: StoreEngine) async throws {
        let (w, kept, ignored, _) = try await world(engine)
        w.advance((30 + 30) * 86_400 + 60)
        // Off by default: nothing ends, however late.
        #expect(try await w.consent.endUnconfirmedAccess().isEmpty)
        try await w.consent.saveReviewSettings(AccessReviewSettings(intervalDays: 30, expireUnconfirmed: true))
        #expect(try await w.consent.reviewSettings() == AccessReviewSettings(intervalDays: 30, expireUnconfirmed: true))
        try await w.consent.keepAccess(appID: kept)
        let ended = try await w.consent.endUnconfirmedAccess()
        #expect(ended == [ignored])
        #expect(try await w.consent.grants(appID: ignored).isEmpty)
        #expect(try await w.consent.view(appID: ignored).records(RecordQuery(type: nil)).isEmpty)
        #expect(try await w.consent.view(appID: kept).records(RecordQuery(type: nil)).count == 2)
        let log = try await w.consent.auditLog(appID: ignored)
        let expired = log.filter { $0.operation == ConsentManager.expiredOperation }
        #expect(expired.count == 1 && Set(expired.first?.types ?? []) == Self.types && expired.first?.count == 0)
        #expect(try await w.consent.endUnconfirmedAccess().isEmpty, "once")
        // The interval is clamped to what the settings allow.
        #expect(AccessReviewSettings(intervalDays: 1, expireUnconfirmed: false).intervalDays == 7)
    }
}

extension AppView {
    /// Runs a read through the view and returns the view (for setting up audit entries).
    fileprivate func then<T>(_ body: (AppView) async throws -> T) async throws -> AppView {
        _ = try await body(self)
        return self
    }
}
