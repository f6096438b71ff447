import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import SMARTAuthorization

/// Which resources `contained` in a served resource an app may see: each is judged as if it
/// were stored on its own — its type (and granular category) within the token's scopes, and
/// its own consent category granted to the app. A contained Condition inside a granted
/// MedicationRequest is no more readable than a stored one.
struct ContainedFilter: Sendable, Hashable {
    /// What the request's token reaches; `nil` for a token not narrowed by scopes.
    let reach: ResourceReach?
    /// The app's consent windows (``ResourcePage/visibleWindows``); `nil` shows every category.
    let windows: [TypeWindow<ConsentCategory>]?

    /// Whether `contained`, inside a resource whose latest change is `anchor` and whose date
    /// for history windows is `date`, is served.
    ///
    /// A window that ends before the container's latest change hides it: the container's first
    /// addition is not known here, and the latest change is never earlier, so this errs on the
    /// side of showing less. A contained resource has no date of its own in the store: it
    /// takes its container's, against its own category's history window. A category limited to
    /// some records (the medications picked for the app) shows none contained: they are not
    /// among the records picked.
    func keeps(_ contained: JSONObject, containerAnchor anchor: QueryAnchor, containerDate date: Date) -> Bool {
        guard let type = contained.string("resourceType") else { return false }
        if let reach, !reach.admits(contained) { return false }
        guard let windows else { return true }
        let category = ClinicalClassifier().category(ofType: type, json: contained)
        return windows.contains { w in
            w.type == category && (w.addedThrough.map { anchor <= $0 } ?? true) && (w.since.map { date >= $0 } ?? true) && w.only == nil
        }
    }
}
