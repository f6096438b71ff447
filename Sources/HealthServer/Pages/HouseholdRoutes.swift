import Foundation
import HealthStoreCore
import Hummingbird

/// The household page (`/household`): whom the person lets act for them (their proxies, added by
/// id and removable at any time), whom they may act for (with the switch, which the front
/// handles: ``FrontRoutes``), and everything proxies did for them. Only the person sees or
/// changes it, never a proxy.
///
/// Adding a proxy writes the arrangement in this person's store (the row every switch checks)
/// and a copy in the proxy's (so their page can offer the switch); ending it, from either side,
/// deletes both, ends every session the proxy holds here at once and revokes the links they
/// made (the apps they approved stay approved: those are the person's apps, and a proxy cannot
/// register one).
struct HouseholdRoutes {
    let store: any HouseholdStorage & CredentialStorage & HostedLinkStorage
    let person: PersonAccess
    let household: Household?
    let personID: String?
    let pages: PersonPages
    let clock: HealthClock

    func register(on signedIn: RouterGroup<HealthRequestContext>, personOnly: RouterGroup<HealthRequestContext>) {
        personOnly.get("/household") { request, context -> Response in
            let query = FormFields.parse(request.uri.query ?? "")
            return try await page(context, error: query["error"])
        }
        pages.post(personOnly, "/household/proxies") { form, context -> Response in
            guard let household, let personID else { return try await page(context, error: "Only a server for many people has households.") }
            let id = (form["person"] ?? "").trimmingCharacters(in: .whitespaces)
            guard PersonEntry.isValidID(id), id != personID, let name = try await household.name(id) else {
                return try await page(context, error: "There is nobody with that id here.", status: .badRequest)
            }
            let now = clock.now
            try await store.saveHouseholdMember(HouseholdMember(id: id, name: name, role: .proxy, since: now))
            let own = try await household.name(personID) ?? personID
            try await household.storage(id)?.saveHouseholdMember(HouseholdMember(id: personID, name: own, role: .represented, since: now))
            return PageRenderer.redirect("/household")
        }
        pages.post(personOnly, "/household/proxies/{id}/remove") { _, context -> Response in
            guard let id = context.parameters.get("id"), PersonEntry.isValidID(id) else { return pages.notFound(context) }
            try await end(proxy: id, of: personID)
            return PageRenderer.redirect("/household")
        }
        pages.post(personOnly, "/household/represented/{id}/remove") { _, context -> Response in
            guard let id = context.parameters.get("id"), PersonEntry.isValidID(id), let household, let personID else { return pages.notFound(context) }
            // Stepping down as someone's proxy: their record of it goes, and with it any session
            // this person holds in their store and the links they made there.
            _ = try await store.removeHouseholdMember(id: id, role: .represented)
            if let theirs = try await household.storage(id) {
                _ = try await theirs.removeHouseholdMember(id: personID, role: .proxy)
                _ = try await theirs.deleteCredentials(family: PersonSessions.proxyFamily(personID))
                _ = try await theirs.revokeHostedLinks(madeBy: personID, at: clock.now)
            }
            return PageRenderer.redirect("/household")
        }
    }

    /// Ends a proxy's arrangement and every session they hold here.
    private func end(proxy id: String, of personID: String?) async throws {
        _ = try await store.removeHouseholdMember(id: id, role: .proxy)
        _ = try await store.deleteCredentials(family: PersonSessions.proxyFamily(id))
        _ = try await store.revokeHostedLinks(madeBy: id, at: clock.now)
        // The proxy may have been removed from the server since: then there is no copy to delete.
        if let household, let personID { _ = try await household.storage(id)?.removeHouseholdMember(id: personID, role: .represented) }
    }

    private func page(_ context: HealthRequestContext, error: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let members = try await store.householdMembers()
        let actions = try await store.proxyActions(limit: 100)
        return pages.page(
            context,
            HouseholdPage(
                available: household != nil, personID: personID ?? "", error: error,
                proxies: members.filter { $0.role == .proxy }.map(HouseholdPage.Member.init),
                represented: members.filter { $0.role == .represented }.map(HouseholdPage.Member.init),
                actions: actions.map(HouseholdPage.Action.init)),
            status: status)
    }
}

/// The household page.
struct HouseholdPage: PageContent {
    static let template = "household"
    let title = "Household"
    /// Whether this server has other people (a server for many).
    let available: Bool
    let personID: String
    let error: String?
    let proxies: [Member]
    let represented: [Member]
    let actions: [Action]

    struct Member: Sendable {
        let id: String
        let name: String
        let since: String

        init(_ m: HouseholdMember) { (id, name, since) = (m.id, m.name, PageDates.short(m.since)) }
    }

    struct Action: Sendable {
        let who: String
        let what: String
        let when: String

        init(_ a: ProxyAction) { (who, what, when) = (a.actorName, a.action, PageDates.dateTime(a.date)) }
    }
}
