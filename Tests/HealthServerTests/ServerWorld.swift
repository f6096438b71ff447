import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthServer
import HealthStoreCore
import HealthStorePostgres
import HealthStoreSQLite
import Hummingbird
import HummingbirdTesting
import Logging
import NetworkAddresses
import OutboundHTTP
import SmartHealthCards
import Synchronization
import TestSupport
import VerifiableRecords

/// The engines the server suites run on: SQLite always, PostgreSQL when
/// `HEALTHRECORDS_POSTGRES_URL` names a server (each store is a new person there).
struct ServerEngine: Sendable, CustomStringConvertible {
    let name: String
    let make: @Sendable (TemporaryDirectory, HealthClock) async throws -> any HealthStore

    var description: String { name }

    static let testKey = StoreCredentials.keyFile(Data(repeating: 7, count: 32))

    static let sqlite = ServerEngine(name: "sqlite") { dir, clock in
        try await SQLiteHealthStore(path: dir.path("store-\(UUID().uuidString).sqlite"), clock: clock)
    }

    static let sqliteEncrypted = ServerEngine(name: "sqlite-encrypted") { dir, clock in
        try await SQLiteHealthStore(path: dir.path("store-\(UUID().uuidString).sqlite"), clock: clock, credentials: testKey, kdf: .testing)
    }

    static let postgres = ServerEngine(name: "postgres") { _, clock in
        try await PostgresHealthStore(database: try ServerTestDatabase.shared(), person: "server-\(UUID().uuidString)", clock: clock)
    }

    static let postgresEncrypted = ServerEngine(name: "postgres-encrypted") { _, clock in
        try await PostgresHealthStore(
            database: try ServerTestDatabase.shared(), person: "server-\(UUID().uuidString)", clock: clock, credentials: testKey, kdf: .testing)
    }

    static let all: [ServerEngine] = [.sqlite, .sqliteEncrypted] + (ServerTestDatabase.isConfigured ? [.postgres, .postgresEncrypted] : [])
    /// One of each engine, unencrypted.
    static let plain: [ServerEngine] = [.sqlite] + (ServerTestDatabase.isConfigured ? [.postgres] : [])
}

/// The PostgreSQL server named by `HEALTHRECORDS_POSTGRES_URL`, one pool for every test.
enum ServerTestDatabase {
    static let urlText: String? = ProcessInfo.processInfo.environment["HEALTHRECORDS_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static var isConfigured: Bool { urlText != nil }

    /// A misspelt URL fails every PostgreSQL test loudly rather than skipping them.
    private static let database: Result<PostgresHealthDatabase, HealthStoreError>? = urlText.map { text in
        Result { () throws(HealthStoreError) in
            var url = try PostgresStoreURL(text)
            url.person = nil
            return try PostgresHealthDatabase(url: url)
        }
    }

    static func shared() throws -> PostgresHealthDatabase {
        guard let database else { throw HealthStoreError.invalidArgument("HEALTHRECORDS_POSTGRES_URL is not set") }
        return try database.get()
    }
}

/// A store of one engine, a server over it with a known person token, captured logs and
/// recorded webhooks, and helpers to fill the store.
final class ServerWorld: Sendable {
    static let personToken = "person-token-for-tests-0123456789"
    static let privacy = URL(string: "https://example.org/privacy")!
    /// The redirect URIs every test app registers (requests may name only these).
    static let redirectURIs = ["https://app.example/done?x=1", "https://x.example/", "https://app.example/cards"].map { URL(string: $0)! }

    let dir = TemporaryDirectory()
    let store: any HealthStore
    let consent: ConsentManager
    let server: HealthServer
    let logs = LogCapture()
    let webhooks: RecordingWebhookSender
    private let time = MovableTime()

    init(
        _ engine: ServerEngine, configure: (inout ServerConfiguration) -> Void = { _ in }, failingDeliveries: Int = 0,
        resolver: any HostResolver = SystemResolver(), defaultWebhookSender: Bool = false
    ) async throws {
        let time = self.time
        store = try await engine.make(dir, HealthClock { time.now })
        consent = ConsentManager(store: store)
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, personToken: Self.personToken)
        configuration.observePollInterval = .milliseconds(50)
        configuration.heartbeatInterval = .milliseconds(200)
        configuration.webhooks = WebhookPolicy(allowLoopback: true, maxAttempts: 3, initialBackoff: .milliseconds(10), timeout: .seconds(2))
        configure(&configuration)
        webhooks = RecordingWebhookSender(failing: failingDeliveries)
        var logger = Logger(label: "test") { [logs] label in JSONLogHandler(label: label, sink: { logs.append($0) }) }
        logger.logLevel = .trace
        server = try await HealthServer(
            store: store, configuration: configuration, logger: logger, webhookSender: defaultWebhookSender ? nil : webhooks, resolver: resolver)
    }

    /// The store's clock now.
    var now: Date { time.now }

    /// Moves the store's clock (and so token expiry) forward.
    func advance(_ seconds: TimeInterval) { time.advance(seconds) }

    /// Imports resources as one file of a source.
    func importResources(_ resources: [String], source: String = "clinic") async throws {
        let path = try dir.write("in/\(UUID().uuidString).json", Fixtures.bundle(resources))
        let report = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: source))).importPaths([path])
        guard report.failed == 0 else { throw TestFailure("the import failed: \(report.files.compactMap(\.error))") }
        advance(60)
    }

    /// Registers an app.
    func register(_ types: Set<HealthDataType>, required: Set<HealthDataType> = [], name: String = "Tracker") async throws -> AppCredentials {
        try await consent.register(
            name: name, purpose: "Charts your results for you", privacyPolicyURL: Self.privacy, requestedTypes: types, requiredTypes: required,
            redirectURIs: Self.redirectURIs)
    }

    /// Registers an app and allows it every type it asks for, new data included.
    func allowedApp(_ types: Set<HealthDataType>) async throws -> AppCredentials {
        let creds = try await register(types)
        try await consent.decide(appID: creds.appID, AuthorizationDecision(allow: types, newData: .share))
        return creds
    }

    /// Saves two immunization cards and one laboratory card.
    func saveCards() async throws {
        func card(_ n: Int, types: [String], relevant: Date) -> (VerifiableClinicalRecord, CardStatus) {
            (VerifiableClinicalRecord(
                recordTypes: types, issuerIdentifier: "https://issuer.example", subject: .init(fullName: "Pat \(n)", dateOfBirth: nil),
                issuedDate: relevant, relevantDate: relevant, expirationDate: nil, itemNames: ["Vaccine \(n)"],
                dataRepresentation: Data("header.payload\(n).signature".utf8), fhirResourceTypes: ["Immunization"]), .verified(trusted: true))
        }
        let day = Date(timeIntervalSince1970: 1_600_000_000)
        _ = try await store.saveVerifiableRecords([
            card(1, types: [Fixtures.immunizationCard], relevant: day), card(2, types: [Fixtures.immunizationCard], relevant: day.addingTimeInterval(86_400 * 30)),
            card(3, types: [Fixtures.laboratoryCard], relevant: day),
        ])
    }

    /// Runs a test against the server, in process or on a live loopback port.
    func test<Value: Sendable>(_ setup: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await server.application().test(setup) { client in try await body(client) }
    }
}

/// Log lines the server wrote.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Webhook deliveries, failing the first `failing` attempts.
final class RecordingWebhookSender: WebhookSender {
    struct Delivery: Sendable {
        let url: URL
        let body: Data
        let headers: [String: String]
        let accepted: Bool
    }

    private let state: Mutex<(failing: Int, deliveries: [Delivery])>
    private let (stream, continuation) = AsyncStream<Delivery>.makeStream()

    init(failing: Int) { state = Mutex((failing, [])) }

    func post(_ url: URL, body: Data, headers: [String: String], policy: WebhookPolicy) async throws(OutboundError) {
        let accepted = state.withLock { s in
            let ok = s.failing <= 0
            s.failing -= 1
            return ok
        }
        let d = Delivery(url: url, body: body, headers: headers, accepted: accepted)
        state.withLock { $0.deliveries.append(d) }
        continuation.yield(d)
        if !accepted { throw .status(500) }
    }

    /// Every attempt so far.
    var attempts: [Delivery] { state.withLock { $0.deliveries } }

    /// Waits for the next accepted delivery, returning every attempt up to it.
    func nextAccepted() async -> [Delivery] {
        var attempts: [Delivery] = []
        for await d in stream {
            attempts.append(d)
            if d.accepted { break }
        }
        return attempts
    }
}

/// Answers webhook host names from a table (`nil`: does not resolve), without the network.
struct TableResolver: HostResolver {
    let table: [String: String?]

    func addresses(of host: String, timeout: Duration) async throws(OutboundError) -> [IPAddress] {
        guard let text = table[host] ?? nil, let address = IPAddress(literal: text) else { throw .unresolvable(host: host) }
        return [address]
    }
}

/// A time that tests move forward by hand.
final class MovableTime: Sendable {
    /// Where every world's clock starts.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    private let value = Mutex(MovableTime.start)
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Small FHIR resources and card types.
enum Fixtures {
    static let immunizationCard = "https://smarthealth.cards#immunization"
    static let laboratoryCard = "https://smarthealth.cards#laboratory"

    static func record(_ type: ClinicalType, id: String, text: String? = nil) -> String {
        let name = text ?? "Name of \(id)"
        switch type {
        case .allergy: return #"{"resourceType":"AllergyIntolerance","id":"\#(id)","code":{"text":"\#(name)"},"recordedDate":"2020-01-01"}"#
        case .condition: return #"{"resourceType":"Condition","id":"\#(id)","code":{"text":"\#(name)"},"onsetDateTime":"2020-02-01"}"#
        case .immunization:
            return #"{"resourceType":"Immunization","id":"\#(id)","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}],"text":"\#(name)"},"occurrenceDateTime":"2021-01-02"}"#
        case .labResult:
            return #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"laboratory"}]}],"code":{"text":"\#(name)"},"effectiveDateTime":"2020-03-01","valueQuantity":{"value":5.40,"unit":"mmol/L"}}"#
        case .medication:
            return #"{"resourceType":"MedicationStatement","id":"\#(id)","status":"active","medicationCodeableConcept":{"text":"\#(name)"},"effectiveDateTime":"2020-04-01"}"#
        case .procedure: return #"{"resourceType":"Procedure","id":"\#(id)","status":"completed","code":{"text":"\#(name)"},"performedDateTime":"2020-05-01"}"#
        case .vitalSign:
            return #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"vital-signs"}]}],"code":{"text":"\#(name)"},"effectiveDateTime":"2020-06-01","valueQuantity":{"value":120.0,"unit":"mm[Hg]"}}"#
        case .coverage: return #"{"resourceType":"Coverage","id":"\#(id)","status":"active","type":{"text":"\#(name)"}}"#
        case .clinicalNote: return #"{"resourceType":"DocumentReference","id":"\#(id)","status":"current","type":{"text":"\#(name)"},"date":"2020-07-01T00:00:00Z"}"#
        }
    }

    static func bundle(_ resources: [String]) -> String {
        #"{"resourceType":"Bundle","type":"collection","entry":["# + resources.map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}"
    }

    static let patient = #"{"resourceType":"Patient","id":"p1","birthDate":"1980-05-06","name":[{"text":"Robin Example"}]}"#
}
