import Foundation
import HealthStoreCore
import Hummingbird

/// The pages an app sends the person to: the authorization sheet (`/consent/{id}`) and the
/// verifiable-record picker (`/share/{id}`).
///
/// The sheet shows the app's name, purpose and privacy policy, and one toggle per type with
/// what it holds and how sensitive it is — there is no "allow all" — and the new-data choice.
/// Types left off are denied. The picker shows only the cards that have every requested type;
/// the person ticks the ones to share (or none).
struct ConsentRoutes {
    let state: ServerState
    let person: PersonRoutes

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/consent/{id}") { _, context -> Response in
            guard let r = state.pending.authorization(context.parameters.get("id") ?? ""), r.state == .pending,
                let app = try? await state.consent.app(r.appID).registration
            else { return person.notFound(context) }
            let grants = Dictionary(try await state.consent.grants(appID: app.id).map { ($0.type, $0) }, uniquingKeysWith: { a, _ in a })
            let types = r.types.map { t -> [String: Any] in
                [
                    "name": t.name, "title": TypeDescriptions.title(t), "about": TypeDescriptions.about(t),
                    "sensitivity": TypeDescriptions.sensitivity(t).rawValue, "high": TypeDescriptions.sensitivity(t) == .high,
                    "required": app.requiredTypes.contains(t), "on": grants[t]?.decision == .allowed,
                ]
            }
            let share = r.types.contains { grants[$0]?.newData == .share }
            return person.page(context, "consent", [
                "title": "\(app.name) would like to access your health records", "id": r.id, "action": "/consent/\(r.id)", "app": app.name, "purpose": app.purpose,
                "privacy": app.privacyPolicyURL.absoluteString, "types": types, "hasRequired": !app.requiredTypes.isDisjoint(with: r.types),
                "share": share, "ask": !share,
            ])
        }
        group.post("/consent/{id}") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            let id = context.parameters.get("id") ?? ""
            guard let r = state.pending.authorization(id), r.state == .pending, let app = try? await state.consent.app(r.appID).registration else {
                return person.notFound(context)
            }
            let picked = form["action"] == "deny" ? [] : Set(form.all("allow"))
            let allow = Set(r.types.filter { picked.contains($0.name) })
            let deny = Set(r.types).subtracting(allow)
            let newData: NewDataPolicy = form["newData"] == "share" ? .share : .ask
            var outcome = AuthorizationRequest.State.completed
            do {
                try await state.consent.decide(appID: app.id, AuthorizationDecision(allow: allow, deny: deny, newData: newData))
            } catch ConsentError.requiredAuthorizationDenied {
                outcome = .requiredAuthorizationDenied
            }
            _ = state.pending.answerAuthorization(id, state: outcome)
            if let redirect = r.redirectURI { return PageRenderer.redirect(Self.append(redirect, "authorization_request", id)) }
            let message = outcome == .completed
                ? "Your choices are saved. You can change them at any time on the Apps page. You can return to \(app.name) now."
                : "Your choices are saved. \(app.name) cannot work without some of the types you turned off, so it will tell you it could not get access."
            return person.page(context, "message", ["title": "Done", "message": message])
        }
        group.get("/share/{id}") { _, context -> Response in
            guard let r = state.pending.cards(context.parameters.get("id") ?? ""), r.state == .pending,
                let app = try? await state.consent.app(r.appID).registration
            else { return person.notFound(context) }
            let cards = try await state.consent.offeredCards(for: r.request)
            return person.page(context, "share", [
                "title": "Share verifiable records with \(app.name)", "id": r.id, "app": app.name, "purpose": app.purpose,
                "privacy": app.privacyPolicyURL.absoluteString, "cards": cards.map(PersonRoutes.cardValues), "empty": cards.isEmpty,
                "types": r.request.recordTypes.joined(separator: ", "),
            ])
        }
        group.post("/share/{id}") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            let id = context.parameters.get("id") ?? ""
            guard let r = state.pending.cards(id), r.state == .pending, let app = try? await state.consent.app(r.appID).registration else {
                return person.notFound(context)
            }
            let picked = form["action"] == "none" ? [] : form.all("card")
            let token: String
            do { token = try await state.consent.shareCards(r.request, picked: picked) } catch ConsentError.cardNotOffered {
                return person.page(context, "message", ["title": "Not shared", "message": "A card you picked is not one this request offers. Nothing was shared."])
            }
            _ = state.pending.answerCards(id, token: token)
            if let redirect = r.redirectURI { return PageRenderer.redirect(Self.append(redirect, "verifiable_record_request", id)) }
            let n = picked.count
            return person.page(context, "message", [
                "title": "Done",
                "message": n == 0 ? "Nothing was shared. You can return to \(app.name) now."
                    : "\(n) record\(n == 1 ? " is" : "s are") ready for \(app.name) to collect once. You can return to it now.",
            ])
        }
    }

    /// The app's redirect URI with one query item added.
    static func append(_ url: URL, _ name: String, _ value: String) -> String {
        guard var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        c.queryItems = (c.queryItems ?? []) + [URLQueryItem(name: name, value: value)]
        return c.url?.absoluteString ?? url.absoluteString
    }
}
