import Foundation

/// Access reviews: every so often the person is shown each app that can read — what it may read,
/// how far back, when it last read and what — and keeps, narrows or revokes it. Confirming
/// re-dates the app's grants; optionally, access no one confirms ends by itself.
extension ConsentManager {
    /// The person's review settings (``AccessReviewSettings/standard`` until changed).
    public func reviewSettings() async throws -> AccessReviewSettings {
        try await store.setting(AccessReviewSettings.settingName).flatMap(AccessReviewSettings.init(text:)) ?? .standard
    }

    /// Stores the person's review settings.
    public func saveReviewSettings(_ settings: AccessReviewSettings) async throws {
        try await store.saveSetting(AccessReviewSettings.settingName, value: settings.text)
    }

    /// Every app that can read something, the most overdue first.
    public func accessReview() async throws -> [AccessReviewItem] {
        let settings = try await reviewSettings()
        var items: [AccessReviewItem] = []
        for stored in try await store.apps() {
            let app = stored.registration
            let allowed = try await store.grants(appID: app.id).filter { $0.decision == .allowed }.sorted { $0.type < $1.type }
            guard let confirmed = allowed.map(\.decidedDate).max() else { continue }
            let due = confirmed.addingTimeInterval(Double(settings.intervalDays) * 86_400)
            let log = try await store.auditEntries(appID: app.id, newestFirst: 200, offset: 0)
            let reads = log.filter { $0.date >= confirmed && $0.operation != Self.expiredOperation }
            items.append(
                AccessReviewItem(
                    app: app, grants: allowed, confirmed: confirmed, due: due,
                    ends: settings.expireUnconfirmed ? due.addingTimeInterval(Double(AccessReviewSettings.graceDays) * 86_400) : nil,
                    lastRead: log.first { $0.operation != Self.expiredOperation }, readSinceConfirmed: Array(Set(reads.flatMap(\.types))).sorted()))
        }
        return items.sorted { ($0.due, $0.app.name) < ($1.due, $1.app.name) }
    }

    /// Whether any app's review is due now (one statement for the settings' interval and one
    /// for the oldest confirmation, so every page can ask).
    public func reviewIsDue() async throws -> Bool {
        guard let oldest = try await store.oldestConfirmation() else { return false }
        let settings = try await reviewSettings()
        return store.clock.now >= oldest.addingTimeInterval(Double(settings.intervalDays) * 86_400)
    }

    /// Keeps an app's access as it is: its allowed grants are confirmed now.
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)``.
    public func keepAccess(appID: String) async throws {
        _ = try await app(appID)
        let now = store.clock.now
        try await store.saveGrants(try await store.grants(appID: appID).filter { $0.decision == .allowed }.map { g in
            var kept = g
            kept.decidedDate = now
            return kept
        })
    }

    /// Narrows how far back an app may read: each allowed grant gets `window`, or keeps its own
    /// when that is narrower already (this never widens). Confirms the app's access too.
    /// Returns how many grants narrowed.
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)``.
    @discardableResult
    public func narrowHistory(appID: String, to window: HistoryWindow) async throws -> Int {
        _ = try await app(appID)
        let now = store.clock.now
        var narrowed = 0
        try await store.saveGrants(try await store.grants(appID: appID).filter { $0.decision == .allowed }.map { g in
            var next = g
            next.decidedDate = now
            if (window.days ?? .max) < (g.history.days ?? .max) {
                next.history = window
                narrowed += 1
            }
            return next
        })
        return narrowed
    }

    /// With ``AccessReviewSettings/expireUnconfirmed`` on, ends the access of every app not
    /// confirmed within ``AccessReviewSettings/graceDays`` of its review falling due (as a
    /// revocation does) and writes it to the app's audit log. Returns the apps ended.
    @discardableResult
    public func endUnconfirmedAccess() async throws -> [String] {
        guard try await reviewSettings().expireUnconfirmed else { return [] }
        let now = store.clock.now
        var ended: [String] = []
        for item in try await accessReview() {
            guard let ends = item.ends, now >= ends else { continue }
            _ = try await store.removeAccess(appID: item.app.id)
            try await store.appendAudit(
                AuditEntry(appID: item.app.id, date: now, operation: Self.expiredOperation, types: item.grants.map(\.type), count: 0))
            ended.append(item.app.id)
        }
        if !ended.isEmpty { try await store.flushAudit() }
        return ended
    }

    /// The audit log's name for access that ended unconfirmed.
    public static let expiredOperation = "access-expired"
}
