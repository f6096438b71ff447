import HealthStoreCore

/// The person's providers (`/providers`): each with its state and last sync, and the form to
/// add one (kept filled in after a refusal).
struct ProvidersPage: PageContent {
    static let template = "providers"

    /// One provider.
    struct Provider: Sendable {
        let id: String
        let name: String
        let fhirBase: String
        let status: String
        let statusText: String
        /// Left out (not empty) when there is none: Mustache shows a section for "".
        let statusDetail: String?
        let lastSync: String
        let syncing: Bool
        let canSignIn: Bool
        let connectLabel: String
        let canSync: Bool
        let lastResult: String?

        init(_ p: ProviderConnection, syncing: Bool, lastResult: String?, statusText: String) {
            id = p.id
            name = p.name
            fhirBase = p.fhirBase
            status = p.status.rawValue
            self.statusText = statusText
            statusDetail = p.statusDetail.flatMap { $0.isEmpty ? nil : $0 }
            lastSync = p.lastSync.map(PageDates.short) ?? "never"
            self.syncing = syncing
            canSignIn = p.access == .signIn
            connectLabel = p.status == .connected ? "Sign in again" : "Sign in"
            canSync = p.status == .connected
            self.lastResult = lastResult
        }
    }

    let title = "Providers"
    let providers: [Provider]
    let empty: Bool
    let redirectURI: String
    let fhirBase: String
    let providerName: String
    let clientId: String
    let notice: String?
    let error: String?

    init(providers: [Provider], redirectURI: String, fhirBase: String, providerName: String, clientId: String, notice: String?, error: String?) {
        self.providers = providers
        empty = providers.isEmpty
        self.redirectURI = redirectURI
        self.fhirBase = fhirBase
        self.providerName = providerName
        self.clientId = clientId
        self.notice = notice
        self.error = error
    }
}
