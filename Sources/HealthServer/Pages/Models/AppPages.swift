import HealthStoreCore

/// The apps the person registered or let in (`/apps`).
struct AppsPage: PageContent {
    static let template = "apps"

    /// One app and how many of its types are allowed and denied.
    struct App: Sendable {
        let id: String
        let name: String
        let purpose: String
        let allowed: Int
        let denied: Int
    }

    let title = "Apps"
    let apps: [App]
    let empty: Bool
    /// Whether an app's access review is due.
    let reviewDue: Bool
    /// Whether the page offers to register an app (never to a proxy: registering is the person's).
    let mayRegister: Bool

    init(apps: [App], reviewDue: Bool, mayRegister: Bool) {
        self.apps = apps
        empty = apps.isEmpty
        self.reviewDue = reviewDue
        self.mayRegister = mayRegister
    }
}

/// One app (`/apps/{id}`): what it asked for, what the person decided, and what it read.
struct AppPage: PageContent {
    static let template = "app"

    /// A type the app asks for.
    struct Requested: Sendable {
        let title: String
        let required: Bool
    }

    /// The person's decision on one type.
    struct Grant: Sendable {
        let title: String
        let allowed: Bool
        let newData: String
        let date: String
        /// How far back it may read: "all recorded data", "the past 30 days"…
        let history: String

        init(_ g: ReadGrant) {
            title = TypeDescriptions.title(g.type)
            allowed = g.decision == .allowed
            newData = g.newData == .share ? "shared automatically" : "asks first"
            date = PageDates.short(g.decidedDate)
            history = g.history.phrase
        }
    }

    /// One line of the audit log.
    struct Read: Sendable {
        let date: String
        let operation: String
        let types: String
        let hasTypes: Bool
        let count: Int

        init(_ e: AuditEntry) {
            date = PageDates.dateTime(e.date)
            operation = e.operation
            types = e.types.map(TypeDescriptions.title).joined(separator: ", ")
            hasTypes = !e.types.isEmpty
            count = e.count
        }
    }

    let title: String
    let id: String
    let name: String
    let purpose: String
    let privacy: String
    let registered: String
    let requested: [Requested]
    let grants: [Grant]
    let hasGrants: Bool
    let canApprove: Bool
    let audit: [Read]
    let hasAudit: Bool

    init(_ app: AppRegistration, grants: [ReadGrant], audit: [AuditEntry]) {
        title = app.name
        id = app.id
        name = app.name
        purpose = app.purpose
        privacy = app.privacyPolicyURL.absoluteString
        registered = PageDates.short(app.registeredDate)
        requested = app.requestedTypes.sorted().map { Requested(title: TypeDescriptions.title($0), required: app.requiredTypes.contains($0)) }
        self.grants = grants.map(Grant.init)
        hasGrants = !grants.isEmpty
        canApprove = grants.contains { $0.decision == .allowed && $0.newData == .ask }
        self.audit = audit.map(Read.init)
        hasAudit = !audit.isEmpty
    }
}

/// Registering a SMART app (`/apps/register`); after a refusal, what was typed is kept.
struct RegisterPage: PageContent {
    static let template = "register"
    let title = "Register an app"
    let error: String?
    let name: String
    let purpose: String
    let privacyUrl: String
    let redirectUris: String
    let jwks: String
    let jwksUri: String

    init(values form: FormFields, error: String?) {
        self.error = error
        name = form["name"] ?? ""
        purpose = form["purpose"] ?? ""
        privacyUrl = form["privacyUrl"] ?? ""
        redirectUris = form["redirectUris"] ?? ""
        jwks = form["jwks"] ?? ""
        jwksUri = form["jwksUri"] ?? ""
    }
}
