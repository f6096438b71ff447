import Foundation
import HealthStoreCore
import Hummingbird

/// The access review (`/apps/review`): Keep, Narrow or Revoke each app that can read, and how
/// often the review comes round (`/apps/review-settings`). The Apps page and the timeline say
/// when a review is due.
struct ReviewRoutes {
    let consent: ConsentManager
    let access: AppAccess
    let pages: PersonPages

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/apps/review") { _, context -> Response in
            let settings = try await consent.reviewSettings()
            return pages.page(context, ReviewPage(try await consent.accessReview(), settings: settings, now: consent.store.clock.now))
        }
        pages.post(group, "/apps/review/{id}") { form, context -> Response in
            guard let id = context.parameters.get("id"), (try? await consent.app(id)) != nil else { return pages.notFound(context) }
            switch form["action"] {
            case "keep":
                try await consent.keepAccess(appID: id)
            case "narrow":
                guard let window = form["history"].flatMap(HistoryWindow.init(text:)), window != .all else {
                    return pages.message(context, "Not changed", "Narrow to one of the windows offered. Nothing was changed.", status: .badRequest)
                }
                try await consent.narrowHistory(appID: id, to: window)
            case "revoke":
                try await consent.revoke(appID: id)
                try await access.endAllAccess(appID: id)
            default:
                return pages.message(context, "Not changed", "Choose Keep, Narrow or Revoke. Nothing was changed.", status: .badRequest)
            }
            return PageRenderer.redirect("/apps/review#review-\(id)")
        }
        pages.post(group, "/apps/review-settings") { form, context -> Response in
            guard let days = form["interval"].flatMap({ Int($0) }), AccessReviewSettings.intervalRange.contains(days) else {
                let range = AccessReviewSettings.intervalRange
                return pages.message(
                    context, "Not saved", "Review every \(range.lowerBound) to \(range.upperBound) days. Nothing was changed.", status: .badRequest)
            }
            try await consent.saveReviewSettings(AccessReviewSettings(intervalDays: days, expireUnconfirmed: form["expire"] == "on"))
            return PageRenderer.redirect("/apps/review")
        }
    }
}
