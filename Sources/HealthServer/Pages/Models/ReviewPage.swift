import Foundation
import HealthStoreCore

/// The access review (`/apps/review`): every app that can read, what it may read and how far
/// back, when it last read and what, with Keep, Narrow and Revoke; and how often to review.
struct ReviewPage: PageContent {
    static let template = "review"

    /// One app under review.
    struct Item: Sendable {
        let id: String
        let name: String
        let purpose: String
        /// "Lab Results (the past 30 days), Conditions (all recorded data)"
        let reads: String
        let due: Bool
        let confirmed: String
        let lastRead: String
        let readTypes: String
        let ends: String?
        let windows: [ConsentPage.HistoryOption]
    }

    let title = "Review app access"
    let items: [Item]
    let empty: Bool
    let interval: Int
    let expire: Bool
    let grace = AccessReviewSettings.graceDays

    init(_ review: [AccessReviewItem], settings: AccessReviewSettings, now: Date) {
        items = review.map { r in
            Item(
                id: r.app.id, name: r.app.name, purpose: r.app.purpose,
                reads: r.grants.map { "\(TypeDescriptions.title($0.type)) (\($0.history.phrase))" }.joined(separator: ", "),
                due: r.isDue(at: now), confirmed: PageDates.short(r.confirmed),
                lastRead: r.lastRead.map { "\(PageDates.short($0.date)): \($0.operation), \($0.count) item\($0.count == 1 ? "" : "s")" } ?? "never",
                readTypes: r.readSinceConfirmed.isEmpty ? "nothing" : r.readSinceConfirmed.map(TypeDescriptions.title).joined(separator: ", "),
                ends: r.ends.map(PageDates.short),
                windows: HistoryWindow.choices.filter { $0 != .all }.map { ConsentPage.HistoryOption($0, checked: $0 == .days(30)) })
        }
        empty = review.isEmpty
        interval = settings.intervalDays
        expire = settings.expireUnconfirmed
    }
}
