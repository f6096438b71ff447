import ArgumentParser
import FHIR
import Foundation
import HealthStoreCore
import ProviderSync
import SMARTAuthorization

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "Providers your records download from: add one, sign in, list, remove; pick from a brands bundle.",
        subcommands: [ProvidersAddCommand.self, ProvidersConnectCommand.self, ProvidersListCommand.self, ProvidersRemoveCommand.self, ProvidersBrandsCommand.self])
}

/// Runs provider work, turning its errors into exit 1 with their message.
func providerWork<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let e as ProviderSyncError { throw CommandFailure.failed(e.description) }
}

struct ProvidersAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a provider; prints its id.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("fhir-base"), help: "The provider's FHIR base URL (https; http only to this machine with --allow-loopback).")
    var fhirBase: String?

    @Option(help: "The organization's name (the source's name); learned from the provider when left out.")
    var name: String?

    @Option(help: "The id you type later (default: from the name or host).")
    var id: String?

    @Option(name: .customLong("client-id"), help: "The client id this product is registered under at the provider.")
    var clientID: String?

    @Option(name: .customLong("client-secret"), help: "A file holding the client secret (client_secret_basic).")
    var clientSecret: String?

    @Option(name: .customLong("client-key"), help: "A file holding the client's private key for private_key_jwt (JWK or PEM; ES384 or RS384).")
    var clientKey: String?

    @Option(name: .customLong("key-id"), help: "The kid the provider knows the client key by (default: the JWK's).")
    var keyID: String?

    @Option(help: "The scopes to ask for (default: \"\(ProviderDirectory.defaultScope)\"; with --backend \"\(ProviderDirectory.defaultBackendScope)\").")
    var scope: String?

    @Option(name: .customLong("access-token"), help: "A file holding a token you already have (with --patient).")
    var accessToken: String?

    @Option(help: "The provider's id of your Patient (with --access-token or --backend).")
    var patient: String?

    @Flag(help: "SMART Backend Services: client_credentials with --client-key (organization-level access).")
    var backend = false

    @Option(help: "A SMART User-access Brands bundle (JSON file or https URL) to pick the provider from, with --brand.")
    var brands: String?

    @Option(help: "The brand's name (or organization id) in --brands.")
    var brand: String?

    @Flag(name: .customLong("allow-loopback"), help: "Allow a provider on this machine over http (tests, a local server).")
    var allowLoopback = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        var base = fhirBase
        var organization = name
        if let brands {
            guard let brand else { throw CommandFailure.usage("--brands needs --brand NAME") }
            let chosen = try ProvidersBrandsCommand.find(brand, in: try await ProvidersBrandsCommand.read(brands, allowLoopback: allowLoopback))
            guard let endpoint = chosen.endpoints.first else { throw CommandFailure.failed("the brand \(brand) lists no FHIR endpoint") }
            if base == nil { base = endpoint.fhirBase.absoluteString }
            if organization == nil { organization = chosen.name }
        }
        guard let base else { throw CommandFailure.usage("give --fhir-base (or --brands and --brand)") }
        if clientSecret != nil && clientKey != nil { throw CommandFailure.usage("give --client-secret or --client-key, not both") }
        if (accessToken == nil) != (patient == nil) && !backend { throw CommandFailure.usage("--access-token and --patient go together") }
        if backend && accessToken != nil { throw CommandFailure.usage("--backend gets its own tokens; leave out --access-token") }
        var new = ProviderDirectory.NewProvider(fhirBase: base)
        new.name = organization
        new.id = id
        new.clientID = clientID
        new.scope = scope
        new.patientID = patient
        new.allowLoopback = allowLoopback
        new.access = backend ? .backend : .signIn
        if let clientSecret { new.client = .secret(try Self.secret(clientSecret, "--client-secret")) }
        if let clientKey { new.client = .privateKey(try Self.secret(clientKey, "--client-key"), keyID: keyID) }
        if let accessToken { new.heldToken = try Self.secret(accessToken, "--access-token") }
        let store = try await storeOptions.open()
        let provider = try await providerWork { try await ProviderDirectory(store: store).add(new) }
        if json {
            JSONOutput.print(ProvidersListCommand.describe(provider))
        } else {
            print(provider.id)
            let next = provider.access == .signIn ? "healthrecords providers connect \(provider.id)" : "healthrecords sync \(provider.id)"
            FileHandle.standardError.write(Data("added \(provider.name) (\(provider.fhirBase)); next: \(next)\n".utf8))
        }
    }

    /// A secret's file, trimmed; refused when empty.
    static func secret(_ path: String, _ option: String) throws -> String {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch { throw CommandFailure.usage("\(option): cannot read \(path)") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw CommandFailure.usage("\(option): \(path) is empty") }
        return trimmed
    }
}

struct ProvidersConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Sign in at a provider: prints an address to open; the provider sends the browser back to this command on 127.0.0.1.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The provider's id or name, in any case.")
    var id: String

    @Option(help: "Seconds to wait for the sign-in.")
    var timeout: Int = 300

    @Option(help: "The loopback port to listen on (default: a free one).")
    var port: Int = 0

    func run() async throws {
        guard timeout > 0 else { throw CommandFailure.usage("--timeout must be positive") }
        guard (0...65535).contains(port) else { throw CommandFailure.usage("--port must be 0–65535") }
        let store = try await storeOptions.open()
        let signIn = ProviderSignIn(store: store)
        try await providerWork {
            let id = try await ProviderDirectory(store: store).find(id).id
            let redirect = try await LoopbackRedirect.listen(port: port)
            let url: URL
            do { url = try await signIn.begin(providerID: id, redirectURI: redirect.redirectURI) } catch {
                redirect.close()
                throw error
            }
            // Written straight to the file descriptor: a script reading the pipe needs the line now.
            FileHandle.standardOutput.write(Data("Open this address to sign in: \(url.absoluteString)\n".utf8))
            let query = try await redirect.waitForCallback(timeout: .seconds(timeout))
            let provider = try await signIn.complete(providerID: id, callbackQuery: query)
            FileHandle.standardError.write(Data("connected to \(provider.name)\(provider.patientID.map { " as Patient/\($0)" } ?? ""); next: healthrecords sync \(provider.id)\n".utf8))
        }
    }
}

struct ProvidersListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List providers and whether they are connected.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let providers = try await providerWork { try await ProviderDirectory(store: store).list() }
        if json {
            JSONOutput.print(.array(providers.map(Self.describe)))
            return
        }
        var table = TextTable("id", "name", "status", "last sync", "FHIR base")
        for p in providers {
            table.add(p.id, p.name, p.status.rawValue, p.lastSync.map(JSONOutput.iso8601) ?? "never", p.fhirBase)
        }
        print(table.rendered)
    }

    /// A provider as JSON: never its secrets or tokens.
    static func describe(_ p: ProviderConnection) -> JSONValue {
        .object(
            JSONObject([
                "id": .string(p.id), "name": .string(p.name), "fhirBase": .string(p.fhirBase), "source": .string(p.sourceIdentifier),
                "access": .string(p.access.rawValue), "status": .string(p.status.rawValue), "statusDetail": JSONOutput.string(p.statusDetail),
                "clientId": JSONOutput.string(p.clientID), "patient": JSONOutput.string(p.patientID), "scope": .string(p.scope),
                "added": JSONOutput.date(p.added), "lastSync": JSONOutput.date(p.lastSync), "lastFullSync": JSONOutput.date(p.lastFullSync),
            ]))
    }
}

struct ProvidersRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a provider (its records stay unless --delete-records).")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The provider's id or name, in any case.")
    var id: String

    @Flag(name: .customLong("delete-records"), help: "Also delete every record downloaded from it.")
    var deleteRecords = false

    func run() async throws {
        let store = try await storeOptions.open()
        let (removed, deleted) = try await providerWork { () async throws -> (String, Int) in
            let directory = ProviderDirectory(store: store)
            let id = try await directory.find(id).id
            return (id, try await directory.remove(id: id, deleteRecords: deleteRecords))
        }
        print("removed \(removed)" + (deleteRecords ? "; deleted \(deleted) resources" : ""))
    }
}

struct ProvidersBrandsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "brands",
        abstract: "List the providers in a SMART User-access Brands bundle (add one with providers add --brands SOURCE --brand NAME).")

    @Argument(help: "The bundle: a JSON file or an https URL (leave out with --from-server).")
    var source: String?

    @Option(name: .customLong("from-server"), help: "A FHIR base whose SMART configuration advertises the bundle (user_access_brand_bundle).")
    var fromServer: String?

    @Flag(name: .customLong("allow-loopback"), help: "Allow a bundle or server on this machine over http.")
    var allowLoopback = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        if (source == nil) == (fromServer == nil) { throw CommandFailure.usage("give a bundle (file or URL) or --from-server FHIR-BASE") }
        let brands: [UserAccessBrand]
        if let fromServer {
            brands = try await providerWork { try await BrandBundles.advertised(by: fromServer, allowLoopback: allowLoopback).1 }
        } else {
            brands = try await Self.read(source!, allowLoopback: allowLoopback)
        }
        if json {
            JSONOutput.print(.array(brands.map { b in
                .object(JSONObject([
                    "organization": .string(b.organizationID), "name": .string(b.name), "aliases": .array(b.aliases.map(JSONValue.string)),
                    "website": JSONOutput.string(b.website?.absoluteString),
                    "endpoints": .array(b.endpoints.map { e in
                        .object(JSONObject(["id": .string(e.id), "name": JSONOutput.string(e.name), "fhirBase": .string(e.fhirBase.absoluteString), "fhirVersion": JSONOutput.string(e.fhirVersion)]))
                    }),
                ]))
            }))
            return
        }
        var table = TextTable("name", "FHIR base", "version")
        for b in brands {
            for e in b.endpoints { table.add(b.name, e.fhirBase.absoluteString, e.fhirVersion ?? "") }
        }
        print(table.rendered)
    }

    /// A bundle from a file, or from an http(s) URL.
    static func read(_ source: String, allowLoopback: Bool) async throws -> [UserAccessBrand] {
        if let url = URL(string: source), ["https", "http"].contains(url.scheme?.lowercased() ?? "") {
            return try await providerWork { try await BrandBundles.fetch(url, allowLoopback: allowLoopback) }
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: source)) } catch { throw CommandFailure.usage("cannot read \(source)") }
        do { return try UserAccessBrand.read(bundle: data) } catch { throw CommandFailure.failed("\(source): \(error)") }
    }

    static func find(_ name: String, in brands: [UserAccessBrand]) throws -> UserAccessBrand {
        let wanted = name.lowercased()
        let matches = brands.filter { $0.name.lowercased() == wanted || $0.organizationID == name || $0.aliases.contains { $0.lowercased() == wanted } }
        guard let first = matches.first else { throw CommandFailure.failed("no brand named \(name) (healthrecords providers brands FILE)") }
        guard matches.count == 1 else { throw CommandFailure.failed("\(matches.count) brands are named \(name); give the organization id") }
        return first
    }
}
