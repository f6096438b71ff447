import Foundation
import HealthStoreCore
import Hummingbird
import ProviderSync

/// The person's "Connect a provider" pages: add a provider, sign in there (the provider sends
/// the browser back to `/providers/callback`), sync now, remove. Behind the person's sign-in
/// and CSRF checks like every page; the provider's tokens never reach the browser.
struct ProviderRoutes {
    let state: ServerState
    let person: PersonRoutes

    var redirectURI: String { state.baseURL + "/providers/callback" }

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/providers") { request, context -> Response in
            // Notices are chosen by code: a link cannot put words of its own on the page.
            try await list(context, notice: request.uri.queryParameters.get("notice").flatMap { Self.notices[$0] })
        }
        group.post("/providers") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            var new = ProviderDirectory.NewProvider(fhirBase: form["fhirBase"] ?? "")
            new.name = form["name"].flatMap { $0.isEmpty ? nil : $0 }
            new.clientID = form["clientId"].flatMap { $0.isEmpty ? nil : $0 }
            if let secret = form["clientSecret"], !secret.isEmpty { new.client = .secret(secret) }
            new.allowLoopback = state.configuration.allowLoopbackProviders
            let provider: ProviderConnection
            do { provider = try await ProviderDirectory(store: state.store, clock: clock).add(new) } catch {
                return try await list(context, error: "\(error)", form: form, status: .badRequest)
            }
            return try await connect(provider.id, context)
        }
        group.post("/providers/{id}/connect") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            return try await connect(context.parameters.get("id") ?? "", context)
        }
        group.get("/providers/callback") { request, context -> Response in
            let query = request.uri.query ?? ""
            let signIn = ProviderSignIn(store: state.store, clock: clock)
            let stateValue = request.uri.queryParameters.get("state") ?? ""
            do {
                guard let provider = try await signIn.provider(forState: stateValue) else {
                    throw ProviderSyncError.signIn("this sign-in is not one this server started (or it was finished already)")
                }
                let connected = try await signIn.complete(providerID: provider.id, callbackQuery: query)
                await state.providerSync.syncNow(connected.id)
                return PageRenderer.redirect("/providers?notice=connected")
            } catch {
                return try await list(context, error: "\(error)", status: .badRequest)
            }
        }
        group.post("/providers/{id}/sync") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            let id = context.parameters.get("id") ?? ""
            guard try await state.store.provider(id: id) != nil else { return person.notFound(context) }
            let started = await state.providerSync.syncNow(id)
            return PageRenderer.redirect("/providers?notice=" + (started ? "sync-started" : "sync-running"))
        }
        group.post("/providers/{id}/remove") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            let id = context.parameters.get("id") ?? ""
            do { _ = try await ProviderDirectory(store: state.store, clock: clock).remove(id: id, deleteRecords: false) } catch {
                return try await list(context, error: "\(error)", status: .badRequest)
            }
            return PageRenderer.redirect("/providers?notice=removed")
        }
    }

    private var clock: @Sendable () -> Date {
        let storeClock = state.store.clock
        return { storeClock.now }
    }

    private func connect(_ id: String, _ context: HealthRequestContext) async throws -> Response {
        do {
            let url = try await ProviderSignIn(store: state.store, clock: clock).begin(providerID: id, redirectURI: redirectURI)
            return PageRenderer.redirect(url.absoluteString)
        } catch {
            return try await list(context, error: "\(error)", status: .badRequest)
        }
    }

    private func list(
        _ context: HealthRequestContext, notice: String? = nil, error: String? = nil, form: FormFields? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let providers = try await state.store.providers()
        var rows: [[String: Any]] = []
        for p in providers {
            let syncing = await state.providerSync.isRunning(p.id)
            let last = await state.providerSync.lastReport(p.id)
            var row: [String: Any] = [
                "id": p.id, "name": p.name, "fhirBase": p.fhirBase, "status": p.status.rawValue,
                "statusText": Self.statusText(p.status), "lastSync": p.lastSync.map(PersonRoutes.shortDate) ?? "never", "syncing": syncing,
                "canSignIn": p.access == .signIn, "connectLabel": p.status == .connected ? "Sign in again" : "Sign in", "canSync": p.status == .connected,
            ]
            // Mustache takes "" for true: absent values are left out, not empty.
            if let detail = p.statusDetail, !detail.isEmpty { row["statusDetail"] = detail }
            if let last { row["lastResult"] = Self.result(last) }
            rows.append(row)
        }
        var values: [String: Any] = [
            "title": "Providers", "providers": rows, "empty": rows.isEmpty, "redirectURI": redirectURI,
            "fhirBase": form?["fhirBase"] ?? "", "providerName": form?["name"] ?? "", "clientId": form?["clientId"] ?? "",
        ]
        if let notice { values["notice"] = notice }
        if let error { values["error"] = error }
        var response = person.page(context, "providers", values)
        response.status = status
        return response
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
