import ArgumentParser
import Foundation
import HealthServer
import HealthStoreCore

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the app API and the person's consent pages over HTTP.",
        discussion: """
            Apps registered with `healthrecords apps register` get tokens at POST /token (OAuth2 client credentials) \
            and read through the person's grants; the OpenAPI document is at /openapi.json. The person signs in to \
            the pages with the link printed at start; its token comes from --person-token-file or \
            HEALTHRECORDS_PERSON_TOKEN, else it is random for this run. Logs are JSON lines on standard error and \
            hold no health data.

            With --people DIR (and no --person), or --postgres URL naming no person, it serves every person \
            of that folder or database (`healthrecords people add`): each signs in at /login with a passkey \
            enrolled through `healthrecords people invite`, and each has their own base at /p/ID (FHIR at \
            /p/ID/fhir); SMART apps may also use the shared base /fhir, where the person is whoever \
            signs in (or the person a proxy picks). --key-file unlocks every person's store.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "The base URL of the links handed to apps, when the server is reached through a proxy (default http://HOST:PORT).")
    var publicURL: String?

    @Option(help: "A file holding the person's sign-in token (default: $HEALTHRECORDS_PERSON_TOKEN, else random).")
    var personTokenFile: String?

    @Option(help: "Requests per second each app may sustain.")
    var rateLimit: Double = 100

    @Option(help: "Requests each app may make in a burst (default: twice --rate-limit).")
    var burst: Double?

    @Option(help: "The largest request body accepted, in bytes.")
    var maxBody = 64 * 1024

    @Option(help: "Seconds a request may take.")
    var requestTimeout = 30

    @Option(help: "Seconds an access token is valid.")
    var tokenLifetime = 3600

    @Flag(help: "Allow webhooks to http://127.0.0.1 (a receiver on this machine).")
    var allowLoopbackWebhooks = false

    @Flag(help: "Allow webhooks to private-network addresses.")
    var allowPrivateWebhooks = false

    @Option(name: .customLong("sync-interval"), help: "Seconds between syncs of every connected provider (0: only when the person asks).")
    var syncInterval = 0

    @Flag(name: .customLong("allow-loopback-providers"), help: "Allow providers on this machine over http (tests, a local FHIR server).")
    var allowLoopbackProviders = false

    @Option(name: .customLong("link-location-lifetime"), help: "Seconds a file location of a shared link works (1–3600; the spec's at most an hour).")
    var linkLocationLifetime = 3600

    @Option(name: .customLong("max-open-people"), help: "With many people: the most whose stores are open at once.")
    var maxOpenPeople = 1000

    @Option(name: .customLong("idle-close"), help: "With many people: seconds a person's store stays open without a request.")
    var idleClose = 600

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Flag(help: "Log plain text lines instead of JSON.")
    var textLogs = false

    @OptionGroup(title: "Verifying cards and EU DCCs the person uploads") var verification: CardVerificationOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        guard rateLimit > 0, (burst ?? 1) >= 1 else { throw ValidationError("--rate-limit must be positive and --burst at least 1") }
        guard maxBody >= 1024 else { throw ValidationError("--max-body must be at least 1024") }
        guard syncInterval >= 0 else { throw ValidationError("--sync-interval must be 0 or more seconds") }
        guard (1...3600).contains(linkLocationLifetime) else { throw ValidationError("--link-location-lifetime must be 1–3600 seconds") }
        guard requestTimeout > 0, tokenLifetime > 0 else { throw ValidationError("--request-timeout and --token-lifetime must be positive") }
        guard maxOpenPeople >= 1, idleClose >= 1 else { throw ValidationError("--max-open-people and --idle-close must be at least 1") }
        guard HealthServer.logLevel(logLevel) != nil else { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
    }

    func run() async throws {
        if let registry = try storeOptions.manyPeopleForServer() {
            try await serve(registry)
            return
        }
        let token = try personToken()
        let store = try await storeOptions.openForServer()
        let configuration = try configuration(personToken: token.value)
        let logger = HealthServer.logger(level: HealthServer.logLevel(logLevel)!, json: !textLogs)
        let server: HealthServer
        do { server = try await HealthServer(store: store, configuration: configuration, logger: logger) } catch let e as ServerSetupError {
            throw CommandFailure.failed(e.description)
        }
        try await server.run { host, port in
            // Written straight to the file descriptor (unbuffered) so scripts reading a pipe see it at once.
            let lines = """
                Listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)
                Person's pages: \(token.madeHere ? server.signInURL : server.baseURL + "/login")
                OpenAPI: \(server.baseURL)/openapi.json

                """
            FileHandle.standardOutput.write(Data(lines.utf8))
        }
    }

    /// Serves every person of a folder or database.
    private func serve(_ registry: any PeopleRegistry) async throws {
        let configuration = try configuration(personToken: SecretToken.make())
        let logger = HealthServer.logger(level: HealthServer.logLevel(logLevel)!, json: !textLogs)
        let server: PeopleServer
        do {
            server = try await PeopleServer(
                registry: registry, credentials: try storeOptions.givenCredentials(), configuration: configuration, logger: logger,
                maxOpenPeople: maxOpenPeople, idleTimeout: .seconds(idleClose))
        } catch let e as ServerSetupError {
            throw CommandFailure.failed(e.description)
        } catch let e as HealthStoreError {
            throw CommandFailure.usage(e.description)
        }
        try await server.run { host, port in
            let lines = """
                Listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)
                People sign in at: \(server.baseURL)/login (enrol with `healthrecords people invite ID --public-url \(server.baseURL)`)
                Each person's base: \(server.baseURL)/p/ID
                The shared SMART base (whoever signs in, or the person a proxy picks): \(server.baseURL)/fhir

                """
            FileHandle.standardOutput.write(Data(lines.utf8))
        }
    }

    /// The server's settings from the options.
    private func configuration(personToken: String) throws -> ServerConfiguration {
        var configuration = ServerConfiguration(
            host: host, port: port, publicBaseURL: publicURL, personToken: personToken,
            accessTokenLifetime: .seconds(tokenLifetime),
            limits: ServerLimits(maxBodyBytes: maxBody, requestTimeout: .seconds(requestTimeout), appRequestsPerSecond: rateLimit, appBurst: burst ?? rateLimit * 2),
            webhooks: WebhookPolicy(allowLoopback: allowLoopbackWebhooks, allowPrivateAddresses: allowPrivateWebhooks))
        configuration.observePollInterval = .seconds(1)
        configuration.providerSyncInterval = syncInterval > 0 ? .seconds(syncInterval) : nil
        configuration.allowLoopbackProviders = allowLoopbackProviders
        configuration.limits.linkLocationLifetime = TimeInterval(linkLocationLifetime)
        configuration.cardVerifier = try verification.verifier()
        configuration.dccVerifier = try verification.dccVerifier()
        return configuration
    }

    /// The person token, and whether it was made for this run. Only such a token is printed (in
    /// the sign-in link, for the person at the terminal): one from a file or the environment is
    /// the operator's, and printing it would copy it into every service log.
    private func personToken() throws -> (value: String, madeHere: Bool) {
        if let personTokenFile {
            guard let text = try? String(contentsOfFile: personTokenFile, encoding: .utf8) else {
                throw CommandFailure.usage("cannot read --person-token-file \(personTokenFile)")
            }
            return (try Self.strong(text.trimmingCharacters(in: .whitespacesAndNewlines), from: "--person-token-file \(personTokenFile)"), false)
        }
        if let env = ProcessInfo.processInfo.environment["HEALTHRECORDS_PERSON_TOKEN"], !env.isEmpty {
            return (try Self.strong(env, from: "HEALTHRECORDS_PERSON_TOKEN"), false)
        }
        return (SecretToken.make(), true)
    }

    /// A person token given by hand, refused unless it carries at least 128 bits: it is the one
    /// secret between the network and the person's records.
    static func strong(_ token: String, from origin: String) throws -> String {
        let bits = SecretToken.estimatedBits(token)
        guard bits >= SecretToken.minimumBits else {
            throw CommandFailure.usage(
                "\(origin): the person token carries about \(Int(bits)) bits; it needs at least \(Int(SecretToken.minimumBits)) "
                    + "(use 32 random bytes, as `openssl rand -base64 32` writes them, or leave it out for a random one)")
        }
        return token
    }
}
