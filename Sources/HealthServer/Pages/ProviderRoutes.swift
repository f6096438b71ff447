import Foundation
import HealthStoreCore
import Hummingbird
import ProviderSync

/// The person's "Connect a provider" pages: add a provider, sign in there (the provider sends
/// the browser back to `/providers/callback`), sync now, remove. Behind the person's sign-in
/// and CSRF checks like every page; the provider's tokens never reach the browser.
struct ProviderRoutes {
    /// Providers, their sign-ins and what their syncs store.
    let store: any HealthStore
    let sync: SyncScheduler
    let address: ServerAddress
    let pages: PersonPages
    /// Whether providers on this machine's own addresses may be added (tests and demos).
    let allowLoopback: Bool

    var redirectURI: String { address.baseURL + "/providers/callback" }

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/providers") { request, context -> Response in
            // Notices are chosen by code: a link cannot put words of its own on the page.
            try await list(context, notice: request.uri.queryParameters.get("notice").flatMap { Self.notices[$0] })
        }
        pages.post(group, "/providers") { form, context -> Response in
            var new = ProviderDirectory.NewProvider(fhirBase: form["fhirBase"] ?? "")
            new.name = form["name"].flatMap { $0.isEmpty ? nil : $0 }
            new.clientID = form["clientId"].flatMap { $0.isEmpty ? nil : $0 }
            if let secret = form["clientSecret"], !secret.isEmpty { new.client = .secret(secret) }
            new.allowLoopback = allowLoopback
            let provider: ProviderConnection
            do { provider = try await ProviderDirectory(store: store, clock: clock).add(new) } catch {
                return try await list(context, error: "\(error)", form: form, status: .badRequest)
            }
            return try await connect(provider.id, context)
        }
        pages.post(group, "/providers/{id}/connect") { form, context -> Response in
            return try await connect(context.parameters.get("id") ?? "", context)
        }
        group.get("/providers/callback") { request, context -> Response in
            let query = request.uri.query ?? ""
            let signIn = ProviderSignIn(store: store, clock: clock)
            let stateValue = request.uri.queryParameters.get("state") ?? ""
            do {
                guard let provider = try await signIn.provider(forState: stateValue) else {
                    throw ProviderSyncError.signIn("this sign-in is not one this server started (or it was finished already)")
                }
                let connected = try await signIn.complete(providerID: provider.id, callbackQuery: query)
                await sync.syncNow(connected.id)
                return PageRenderer.redirect("/providers?notice=connected")
            } catch {
                return try await list(context, error: "\(error)", status: .badRequest)
            }
        }
        pages.post(group, "/providers/{id}/sync") { form, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard try await store.provider(id: id) != nil else { return pages.notFound(context) }
            let started = await sync.syncNow(id)
            return PageRenderer.redirect("/providers?notice=" + (started ? "sync-started" : "sync-running"))
        }
        pages.post(group, "/providers/{id}/remove") { form, context -> Response in
            let id = context.parameters.get("id") ?? ""
            do { _ = try await ProviderDirectory(store: store, clock: clock).remove(id: id, deleteRecords: false) } catch {
                return try await list(context, error: "\(error)", status: .badRequest)
            }
            return PageRenderer.redirect("/providers?notice=removed")
        }
    }

    private var clock: @Sendable () -> Date {
        let storeClock = store.clock
        return { storeClock.now }
    }

    private func connect(_ id: String, _ context: HealthRequestContext) async throws -> Response {
        do {
            let url = try await ProviderSignIn(store: store, clock: clock).begin(providerID: id, redirectURI: redirectURI)
            return PageRenderer.redirect(url.absoluteString)
        } catch {
            return try await list(context, error: "\(error)", status: .badRequest)
        }
    }

    private func list(
        _ context: HealthRequestContext, notice: String? = nil, error: String? = nil, form: FormFields? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let providers = try await store.providers()
        var rows: [ProvidersPage.Provider] = []
        for p in providers {
            rows.append(ProvidersPage.Provider(
                p, syncing: await sync.isRunning(p.id), lastResult: await sync.lastReport(p.id).map(Self.result), statusText: Self.statusText(p.status)))
        }
        return pages.page(
            context,
            ProvidersPage(
                providers: rows, redirectURI: redirectURI, fhirBase: form?["fhirBase"] ?? "", providerName: form?["name"] ?? "",
                clientId: form?["clientId"] ?? "", notice: notice, error: error),
            status: status)
    }

    static func statusText(_ status: ProviderConnection.Status) -> String {
        switch status {
        case .notConnected: return "Not signed in"
        case .connected: return "Connected"
        case .needsSignIn: return "Needs you to sign in again"
        }
    }

    static func result(_ r: SyncReport) -> String {
        if let e = r.error { return "last sync failed: \(e.message)" }
        return "\(r.fetched) downloaded, \(r.inserted) new, \(r.updated) changed" + (r.deleted > 0 ? ", \(r.deleted) deleted" : "")
            + (r.leftOut > 0 ? ", \(r.leftOut) left out as not yours" : "")
    }

    static let notices = [
        "connected": "Connected. Your records are downloading; reload to see how far they are.",
        "sync-started": "Sync started.", "sync-running": "A sync is running already.", "removed": "Removed. The records it brought stay.",
    ]
}
