import ArgumentParser
import FHIR
import Foundation
import ClinicalRecords
import HealthStoreCore

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Apps that read your records: register them, grant or deny types, approve new data, revoke.",
        subcommands: [
            AppsRegisterCommand.self, AppsGrantCommand.self, AppsApproveCommand.self, AppsStatusCommand.self, AppsRevokeCommand.self,
            AppsListCommand.self, AppsReviewCommand.self, AppsCatalogueCommand.self,
        ])
}

extension StoreOptions {
    func consent() async throws -> ConsentManager { ConsentManager(store: try await open()) }
}

/// Runs consent work, turning consent errors into exit 1 with their message.
func consentWork<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let e as ConsentError {
        throw CommandFailure.failed(e.description)
    }
}

struct AppsRegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register", abstract: "Register an app; prints its id and secret (the secret is shown once).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The name people see.")
    var name: String

    @Option(help: "Why the app wants the data.")
    var purpose: String

    @Option(help: "The app's privacy policy (http or https URL).")
    var privacyUrl: String

    @Option(
        help: """
            Types the app may ask for, comma-separated: clinical types, context categories (personal-details, visits, claims…) and quantity types. \
            Default with --redirect-uri (a SMART on FHIR client): every clinical type and context category, narrowed by the scopes it asks for.
            """)
    var types: TypeListArgument?

    @Option(help: "Types the app cannot work without (none, or at least 3).")
    var required: TypeListArgument?

    @Option(name: .customLong("redirect-uri"), help: "Where the consent pages may send the person back to (exact match; repeatable).")
    var redirectURIs: [String] = []

    @Flag(name: .customLong("public"), help: "A public client (a browser or native app that cannot keep a secret): no secret, PKCE only.")
    var isPublic = false

    @Option(name: .customLong("jwks-file"), help: "An asymmetric client's public keys (a JWKS JSON file; ES384 or RS384 keys).")
    var jwksFile: String?

    @Option(name: .customLong("jwks-uri"), help: "Where an asymmetric client publishes its JWKS (https URL).")
    var jwksURI: String?

    @Flag(help: "Register it in the operator's catalogue, for every person of --people DIR or --postgres URL (no --person).")
    var catalogue = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        guard let url = URL(string: privacyUrl) else { throw CommandFailure.usage("--privacy-url is not a URL") }
        let asymmetric = jwksFile != nil || jwksURI != nil
        if isPublic, asymmetric { throw CommandFailure.usage("--public clients register no keys (--jwks-file, --jwks-uri)") }
        if jwksFile != nil, jwksURI != nil { throw CommandFailure.usage("give --jwks-file or --jwks-uri, not both") }
        var jwks: String?
        if let jwksFile {
            do { jwks = try String(contentsOfFile: jwksFile, encoding: .utf8) } catch { throw CommandFailure.usage("--jwks-file: cannot read \(jwksFile)") }
        }
        var keysURL: URL?
        if let jwksURI {
            guard let u = URL(string: jwksURI) else { throw CommandFailure.usage("--jwks-uri is not a URL: \(jwksURI)") }
            keysURL = u
        }
        let clientType: ClientType = isPublic ? .public : asymmetric ? .confidentialAsymmetric : .confidentialSymmetric
        guard let requested = types?.types ?? (redirectURIs.isEmpty ? nil : Set(ConsentCategory.allCases.map(HealthDataType.init))) else {
            throw CommandFailure.usage("--types is required unless the app is a SMART client (--redirect-uri)")
        }
        var redirects: [URL] = []
        for text in redirectURIs {
            guard let u = URL(string: text) else { throw CommandFailure.usage("--redirect-uri is not a URL: \(text)") }
            redirects.append(u)
        }
        let creds: AppCredentials
        if catalogue {
            guard let registry = try storeOptions.manyPeople() else {
                throw CommandFailure.usage("--catalogue goes with --people DIR or --postgres URL naming no person")
            }
            let (app, made) = try await consentWork {
                try ConsentManager.newApp(
                    name: name, purpose: purpose, privacyPolicyURL: url, requestedTypes: requested, requiredTypes: required?.types ?? [],
                    redirectURIs: redirects, clientType: clientType, jwks: jwks, jwksURI: keysURL, date: Date())
            }
            try await registry.addCatalogueApp(app)
            creds = made
        } else {
            let consent = try await storeOptions.consent()
            creds = try await consentWork {
                try await consent.register(
                    name: name, purpose: purpose, privacyPolicyURL: url, requestedTypes: requested, requiredTypes: required?.types ?? [],
                    redirectURIs: redirects, clientType: clientType, jwks: jwks, jwksURI: keysURL)
            }
        }
        if json {
            var members: [(String, JSONValue)] = [("appId", .string(creds.appID)), ("clientType", .string(clientType.rawValue))]
            if clientType == .confidentialSymmetric { members.append(("secret", .string(creds.secret))) }
            JSONOutput.print(.object(JSONObject(members.map { JSONMember($0.0, $0.1) })))
        } else {
            print("appId:  \(creds.appID)")
            if clientType == .confidentialSymmetric {
                print("secret: \(creds.secret)  (shown once; only its digest is stored)")
            } else {
                print("client: \(clientType.rawValue) (no secret)")
            }
        }
    }
}

struct AppsGrantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Decide an app's access: allow and deny types, how far back it may read them; new data is shared or waits for approval (ask, the default).")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The app id.")
    var app: String

    @Option(help: "Types the app may read, comma-separated.")
    var allow: TypeListArgument?

    @Option(help: "Types it may not read, comma-separated.")
    var deny: TypeListArgument?

    @Option(help: "New records: share (automatically) or ask (before sharing).")
    var newData: NewDataPolicy = .ask

    @Option(
        help: ArgumentHelp(
            "How far back the allowed types may be read: all, or a window ending now (30d, 90d, 1y; any <n>d or <n>y up to 100 years).",
            valueName: "window"))
    var history: HistoryWindow = .all

    @Option(
        help: ArgumentHelp(
            "Only these medications of the list (ids from `healthrecords medications --json`, comma-separated; `none` for none): the app reads the records behind them, and medications added later wait to be picked.",
            valueName: "ids"))
    var medications: String?

    @Flag(help: "Let the medication grant read every medication again (drops an earlier pick).")
    var allMedications = false

    func validate() throws {
        if allow == nil && deny == nil && medications == nil && !allMedications { throw ValidationError("give --allow and/or --deny") }
        if medications != nil && allMedications { throw ValidationError("--medications and --all-medications exclude each other") }
    }

    func run() async throws {
        let consent = try await storeOptions.consent()
        let decision = AuthorizationDecision(allow: allow?.types ?? [], deny: deny?.types ?? [], newData: newData, history: history)
        do {
            if let medications {
                let picked = medications == "none" ? [] : Set(medications.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                try await consent.pickMedications(appID: app, picked)
                print("picked \(picked.count) medication\(picked.count == 1 ? "" : "s") for \(app)")
            } else if allMedications {
                try await consent.pickMedications(appID: app, nil)
                print("\(app) reads every medication its grant allows")
            }
            guard allow != nil || deny != nil else { return }
            let grants = try await consent.decide(appID: app, decision)
            print("decided \(grants.count) type\(grants.count == 1 ? "" : "s") for \(app)")
        } catch ConsentError.requiredAuthorizationDenied {
            print("decided for \(app); the app's authorization request fails: a required type is denied")
        } catch let e as ConsentError {
            throw CommandFailure.failed(e.description)
        }
    }
}

struct AppsApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Share the new data waiting for an app under \"ask before sharing new data\".")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The app id.")
    var app: String

    @Option(help: "Only these types (default: every type the app may read).")
    var types: TypeListArgument?

    func run() async throws {
        let consent = try await storeOptions.consent()
        let n = try await consentWork { try await consent.approveNewData(appID: app, types: types?.types) }
        print("approved new data of \(n) type\(n == 1 ? "" : "s") for \(app)")
    }
}

struct AppsStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What the app's authorization request answers: shouldRequest, unnecessary, or required authorization denied (exit 1).")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The app id.")
    var app: String

    @Option(help: "The types the app would ask for, comma-separated.")
    var types: TypeListArgument

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let consent = try await storeOptions.consent()
        let status = try await consentWork { () -> AuthorizationRequestStatus in
            let view = try await consent.view(appID: app)
            try await view.checkRequiredAuthorization()
            return try await view.requestStatus(for: types.types)
        }
        if json {
            JSONOutput.print(.object(JSONObject(["status": .string(status.rawValue)])))
        } else {
            print(status.rawValue)
        }
    }
}

struct AppsRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Remove every grant of an app.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The app id.")
    var app: String

    func run() async throws {
        let consent = try await storeOptions.consent()
        let n = try await consentWork { try await consent.revoke(appID: app) }
        print("revoked \(app) (\(n) grant\(n == 1 ? "" : "s") removed)")
    }
}

struct AppsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Registered apps and their grants.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let consent = try await storeOptions.consent()
        var rows: [(StoredApp, [ReadGrant])] = []
        for app in try await consent.apps() { rows.append((app, try await consent.grants(appID: app.registration.id))) }
        if json {
            JSONOutput.print(.array(rows.map { app, grants in
                let r = app.registration
                return .object(JSONObject([
                    "appId": .string(r.id), "name": .string(r.name), "purpose": .string(r.purpose),
                    "privacyUrl": .string(r.privacyPolicyURL.absoluteString),
                    "types": .array(r.requestedTypes.sorted().map { .string($0.name) }),
                    "required": .array(r.requiredTypes.sorted().map { .string($0.name) }),
                    "grants": .array(grants.map { g in
                        .object(JSONObject([
                            "type": .string(g.type.name), "decision": .string(g.decision.rawValue), "newData": .string(g.newData.rawValue),
                            "history": .string(g.history.text), "decidedDate": JSONOutput.date(g.decidedDate),
                        ]))
                    }),
                ]))
            }))
            return
        }
        var table = TextTable("app", "name", "allowed", "denied", "undecided")
        for (app, grants) in rows {
            let r = app.registration
            func names(_ d: GrantDecision) -> String {
                grants.filter { $0.decision == d }.map { g in
                    var notes: [String] = []
                    if d == .allowed, g.newData == .ask { notes.append("ask") }
                    if d == .allowed, g.history != .all { notes.append(g.history.text) }
                    return g.type.name + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")")
                }.joined(separator: ",")
            }
            let undecided = r.requestedTypes.subtracting(grants.map(\.type)).sorted().map(\.name).joined(separator: ",")
            table.add(r.id, r.name, names(.allowed), names(.denied), undecided)
        }
        print(table.rendered)
    }
}

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "Every read by an app: who, when, which types, how many.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only this app's reads.")
    var app: String?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let consent = try await storeOptions.consent()
        let entries = try await consentWork { try await consent.auditLog(appID: app) }
        if json {
            JSONOutput.print(.array(entries.map { e in
                .object(JSONObject([
                    "appId": .string(e.appID), "date": JSONOutput.date(e.date), "operation": .string(e.operation),
                    "types": .array(e.types.map { .string($0.name) }), "count": JSONOutput.int(e.count),
                ]))
            }))
            return
        }
        var table = TextTable("date", "app", "read", "types", "count")
        for e in entries { table.add(JSONOutput.iso8601(e.date), e.appID, e.operation, e.types.map(\.name).joined(separator: ","), "\(e.count)") }
        print(table.rendered)
    }
}

/// The operator's catalogue of apps for every person of a server for many (docs/people.md).
struct AppsCatalogueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalogue", abstract: "The operator's apps for every person: list, remove (`apps register --catalogue` adds).",
        subcommands: [AppsCatalogueListCommand.self, AppsCatalogueRemoveCommand.self], defaultSubcommand: AppsCatalogueListCommand.self)
}

struct AppsCatalogueListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The apps of the catalogue, oldest first.")

    @OptionGroup var options: PeopleOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let apps = try await options.registry().catalogueApps()
        if json {
            JSONOutput.print(.array(apps.map { app in
                let r = app.registration
                return .object(JSONObject([
                    "appId": .string(r.id), "name": .string(r.name), "purpose": .string(r.purpose), "clientType": .string(r.clientType.rawValue),
                    "types": .array(r.requestedTypes.sorted().map { .string($0.name) }),
                ]))
            }))
            return
        }
        var table = TextTable("app", "name", "types")
        for app in apps { table.add(app.registration.id, app.registration.name, app.registration.requestedTypes.sorted().map(\.name).joined(separator: ",")) }
        print(table.rendered)
    }
}

struct AppsCatalogueRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Take an app out of the catalogue: people opened from now on do not get it; those who have it keep it.")

    @OptionGroup var options: PeopleOptions

    @Argument(help: "The app id.")
    var app: String

    func run() async throws {
        guard try await options.registry().removeCatalogueApp(id: app) else { throw CommandFailure.failed("no app \(app) in the catalogue") }
        print("removed \(app) from the catalogue")
    }
}
