import Foundation
import HealthStoreCore
import Hummingbird

/// The pages an app sends the person to: the authorization sheet (`/consent/{id}`) and the
/// verifiable-record picker (`/share/{id}`).
///
/// The sheet shows the app's name, purpose and privacy policy, and one toggle per type with
/// what it holds and how sensitive it is — there is no "allow all" — how far back the app may
/// read (all of history, or a window ending now; per type if the person wants), and the
/// new-data choice.
/// Types left off are denied. The picker shows only the cards that have every requested type;
/// the person ticks the ones to share (or none).
struct ConsentRoutes {
    let pending: PendingRequests
    let consent: ConsentManager
    let pages: PersonPages

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/consent/{id}") { _, context -> Response in
            guard let r = try await pending.authorization(context.parameters.get("id") ?? ""), r.state == .pending,
                let app = try? await consent.app(r.appID).registration
            else { return pages.notFound(context) }
            let grants = Dictionary(try await consent.grants(appID: app.id).map { ($0.type, $0) }, uniquingKeysWith: { a, _ in a })
            let share = r.types.contains { grants[$0]?.newData == .share }
            let shown = HistoryChoice.shown(grants, types: r.types)
            let possessive = ConsentPage.possessive(context.session)
            return pages.page(context, ConsentPage(
                title: "\(app.name) would like to access \(possessive) health records", id: r.id, action: "/consent/\(r.id)", app: app.name, purpose: app.purpose,
                privacy: app.privacyPolicyURL.absoluteString,
                types: r.types.map {
                    ConsentPage.TypeChoice($0, required: app.requiredTypes.contains($0), on: grants[$0]?.decision == .allowed, window: shown.own[$0])
                },
                hasRequired: !app.requiredTypes.isDisjoint(with: r.types), share: share, history: shown.sheet,
                medications: try await MedicationPick(consent: consent).shown(appID: app.id, types: r.types), possessive: possessive))
        }
        pages.post(group, "/consent/{id}") { form, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard let r = try await pending.authorization(id), r.state == .pending, let app = try? await consent.app(r.appID).registration else {
                return pages.notFound(context)
            }
            let picked = form["action"] == "deny" ? [] : Set(form.all("allow"))
            let allow = Set(r.types.filter { picked.contains($0.name) })
            let deny = Set(r.types).subtracting(allow)
            let newData: NewDataPolicy = form["newData"] == "share" ? .share : .ask
            guard let history = HistoryChoice(form, types: r.types) else {
                return pages.message(context, "Not saved", "How far back the app may read was not one of the choices offered. Nothing was changed.")
            }
            var outcome = AuthorizationRequest.State.completed
            // The pick first: medications allowed are never readable beyond what was ticked.
            try await MedicationPick(consent: consent).answer(form, appID: app.id, allowed: allow)
            do {
                try await consent.decide(
                    appID: app.id, AuthorizationDecision(allow: allow, deny: deny, newData: newData, history: history.history, historyByType: history.byType))
            } catch ConsentError.requiredAuthorizationDenied {
                outcome = .requiredAuthorizationDenied
            }
            _ = try await pending.answerAuthorization(id, state: outcome)
            if let redirect = r.redirectURI { return PageRenderer.redirect(Self.append(redirect, "authorization_request", id)) }
            let message = outcome == .completed
                ? "Your choices are saved. You can change them at any time on the Apps page. You can return to \(app.name) now."
                : "Your choices are saved. \(app.name) cannot work without some of the types you turned off, so it will tell you it could not get access."
            return pages.message(context, "Done", message)
        }
        group.get("/share/{id}") { _, context -> Response in
            guard let r = try await pending.cards(context.parameters.get("id") ?? ""), r.state == .pending,
                let app = try? await consent.app(r.appID).registration
            else { return pages.notFound(context) }
            let cards = try await consent.offeredCards(for: r.request)
            return pages.page(context, SharePage(
                title: "Share verifiable records with \(app.name)", id: r.id, app: app.name, purpose: app.purpose,
                privacy: app.privacyPolicyURL.absoluteString, cards: cards.map(CardSummary.init), types: r.request.recordTypes.joined(separator: ", ")))
        }
        pages.post(group, "/share/{id}") { form, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard let r = try await pending.cards(id), r.state == .pending, let app = try? await consent.app(r.appID).registration else {
                return pages.notFound(context)
            }
            let picked = form["action"] == "none" ? [] : form.all("card")
            let token: String
            do { token = try await consent.shareCards(r.request, picked: picked) } catch ConsentError.cardNotOffered {
                return pages.message(context, "Not shared", "A card you picked is not one this request offers. Nothing was shared.")
            }
            _ = try await pending.answerCards(id, token: token)
            if let redirect = r.redirectURI { return PageRenderer.redirect(Self.append(redirect, "verifiable_record_request", id)) }
            let n = picked.count
            return pages.message(
                context, "Done",
                n == 0 ? "Nothing was shared. You can return to \(app.name) now."
                    : "\(n) record\(n == 1 ? " is" : "s are") ready for \(app.name) to collect once. You can return to it now.")
        }
    }

    /// The app's redirect URI with one query item added.
    static func append(_ url: URL, _ name: String, _ value: String) -> String {
        guard var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        c.queryItems = (c.queryItems ?? []) + [URLQueryItem(name: name, value: value)]
        return c.url?.absoluteString ?? url.absoluteString
    }
}
