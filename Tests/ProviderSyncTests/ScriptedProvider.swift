import Foundation
import LoopbackHTTP
import SMARTAuthorization
import Synchronization

/// One resource a scripted provider serves: its type and id (for the Bundle entry's fullUrl and
/// the tests' expectations) and its JSON as sent.
struct ServedResource: Sendable, Hashable {
    let type: String
    let id: String
    let json: String

    /// `Type/id`, as the store keys it and a sync's report counts it.
    var key: String { type + "/" + id }

    /// An Observation about `subject` (a reference object's JSON, or `nil` for none).
    static func observation(_ id: String, subject: String? = #"{"reference":"Patient/p1"}"#) -> ServedResource {
        let about = subject.map { #","subject":\#($0)"# } ?? ""
        return ServedResource(
            type: "Observation", id: id,
            json: #"{"resourceType":"Observation","id":"\#(id)","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}]}\#(about),"effectiveDateTime":"2024-01-02","valueQuantity":{"value":5.4,"unit":"mmol/L"}}"#
        )
    }

    /// A Condition about `subject`.
    static func condition(_ id: String, subject: String? = #"{"reference":"Patient/p1"}"#) -> ServedResource {
        let about = subject.map { #","subject":\#($0)"# } ?? ""
        return ServedResource(
            type: "Condition", id: id,
            json: #"{"resourceType":"Condition","id":"\#(id)","code":{"text":"Asthma \#(id)"}\#(about),"recordedDate":"2023-05-06"}"#)
    }

    /// A Patient.
    static func patient(_ id: String, name: String) -> ServedResource {
        ServedResource(type: "Patient", id: id, json: #"{"resourceType":"Patient","id":"\#(id)","name":[{"text":"\#(name)"}],"birthDate":"1980-02-03"}"#)
    }
}

/// A FHIR R4 provider with SMART sign-in, scripted for the sync tests and served over real
/// loopback HTTP (``LoopbackHTTPServer``): `.well-known/smart-configuration`, `metadata` (with
/// the oauth-uris extension, for clients that fall back to it), `/authorize` (approves at once),
/// `/token` (authorization code with PKCE S256, refresh tokens, rotated), the Patient read,
/// paged searchsets per type and `Patient/$everything`. Data needs a live bearer token.
///
/// Everything it is asked is logged, each request named by what it asked for ("metadata",
/// "Patient/p1", "Observation page 2", "$everything page 1", "token refresh_token"…), so a test
/// can tell which pages were fetched, how often, and with which token.
final class ScriptedProvider: Sendable {
    struct Configuration: Sendable {
        /// The connected patient's id.
        var patient = "p1"
        var patientName = "Ana Example"
        /// The client id the provider registered for HealthRecords.
        var clientID = "healthrecords-tests"
        /// The organization's name in the CapabilityStatement.
        var publisher = "Scripted General Hospital"
        /// The resources each search type answers for the patient; the CapabilityStatement lists
        /// these types (and Patient) and no others.
        var searches: [String: [ServedResource]] = [:]
        /// More entries `$everything` returns besides the Patient and the searches' resources.
        var everythingExtras: [ServedResource] = []
        /// Entries per page, whatever `_count` asks.
        var pageSize = 2
        /// Whether the CapabilityStatement offers `Patient/$everything`.
        var offersEverything = false
        /// Whether `.well-known/smart-configuration` exists (else only `metadata` names the endpoints).
        var wellKnown = true
        /// The PKCE methods the SMART configuration lists.
        var challengeMethods = ["S256"]
        /// Whether `/authorize` answers `access_denied`.
        var deniesSignIn = false
        /// Seconds an access token lives.
        var accessLifetime = 3600
    }

    /// One request as answered.
    struct Logged: Sendable {
        /// What it asked for.
        let label: String
        /// The bearer token it carried.
        let bearer: String?
        /// Its query parameters.
        let query: [String: String]
        /// The status answered.
        let status: Int
    }

    /// Tokens the provider issued.
    struct Issued: Sendable, Hashable {
        let access: String
        let refresh: String?
    }

    private struct State {
        var port = 0
        var accessTokens: Set<String> = []
        var refreshTokens: Set<String> = []
        var issuedCount = 0
        var issued: [Issued] = []
        var codes: [String: (challenge: String, redirectURI: String)] = [:]
        var failures: [String: [Int]] = [:]
        var log: [Logged] = []
    }

    let configuration: Configuration
    private let state = Mutex(State())

    private init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Starts a provider on a free loopback port; it answers until the server goes away.
    static func start(_ configuration: Configuration) async throws -> (provider: ScriptedProvider, server: LoopbackHTTPServer) {
        let provider = ScriptedProvider(configuration)
        let server = try await LoopbackHTTPServer { request in provider.answer(request) }
        let port = server.port
        provider.state.withLock { $0.port = port }
        return (provider, server)
    }

    // MARK: - What tests read and change

    var origin: String { "http://127.0.0.1:\(state.withLock { $0.port })" }
    /// The FHIR base, as a connection is added with it.
    var fhirBase: String { origin + "/fhir" }

    /// Every request so far, in order.
    var log: [Logged] { state.withLock { $0.log } }

    /// Every token pair issued so far, in order.
    var issued: [Issued] { state.withLock { $0.issued } }

    /// How many requests asked for `label`.
    func count(_ label: String) -> Int { log.filter { $0.label == label }.count }

    /// The FHIR data requests (reads, searches, `$everything`) of `log`.
    static func dataRequests(_ log: [Logged]) -> [Logged] {
        log.filter { !["metadata", "smart-configuration", "authorize"].contains($0.label) && !$0.label.hasPrefix("token ") }
    }

    /// Issues tokens as a sign-in before the test would have: what a connection holds.
    func grant() -> Issued {
        state.withLock { Self.issue(&$0, rotating: nil) }
    }

    /// Forgets every token: the person revoked HealthRecords' access at the provider.
    func revokeEverything() {
        state.withLock {
            $0.accessTokens.removeAll()
            $0.refreshTokens.removeAll()
        }
    }

    /// Forgets one access token (it expired), keeping the refresh tokens.
    func expire(_ access: String) {
        _ = state.withLock { $0.accessTokens.remove(access) }
    }

    /// The next requests for `label` answer these statuses, in order, then it works again.
    func fail(_ label: String, with statuses: [Int]) {
        state.withLock { $0.failures[label] = statuses }
    }

    /// Every resource the provider holds for the patient: the Patient, then each search's.
    var allResources: [ServedResource] {
        [ServedResource.patient(configuration.patient, name: configuration.patientName)] + configuration.searches.keys.sorted().flatMap { configuration.searches[$0] ?? [] }
    }

    // MARK: - Answering

    func answer(_ request: ReceivedRequest) -> ScriptedReply {
        state.withLock { s in
            let (label, reply) = route(request, &s)
            var query: [String: String] = [:]
            for item in URLComponents(string: request.uri)?.queryItems ?? [] { query[item.name] = item.value ?? "" }
            s.log.append(Logged(label: label, bearer: request.bearer, query: query, status: reply.status))
            return reply
        }
    }

    private func route(_ request: ReceivedRequest, _ s: inout State) -> (String, ScriptedReply) {
        let origin = "http://127.0.0.1:\(s.port)"
        let path = request.path
        switch path {
        case "/fhir/metadata":
            return ("metadata", .json(200, capabilityStatement(origin)))
        case "/fhir/.well-known/smart-configuration":
            guard configuration.wellKnown else { return ("smart-configuration", Self.outcome(404, "not-found")) }
            return ("smart-configuration", .json(200, smartConfiguration(origin), type: "application/json"))
        case "/authorize":
            return ("authorize", authorize(request, &s))
        case "/token":
            let grant = request.form["grant_type"] ?? "none"
            return ("token " + grant, token(request, &s))
        default:
            break
        }
        guard path.hasPrefix("/fhir/") else { return ("other " + path, Self.outcome(404, "not-found")) }
        let rest = String(path.dropFirst("/fhir/".count))
        let page = Int(request.query("page") ?? "1") ?? 1
        let patient = configuration.patient
        let label: String
        let served: [ServedResource]?
        if rest == "Patient/" + patient {
            label = rest
            served = nil
        } else if rest == "Patient/" + patient + "/$everything", configuration.offersEverything {
            label = "$everything page \(page)"
            served = allResources + configuration.everythingExtras
        } else if let list = configuration.searches[rest] {
            label = "\(rest) page \(page)"
            guard request.query("patient") == patient else { return (label, Self.outcome(400, "invalid", "search by patient=\(patient)")) }
            served = list
        } else {
            return ("other " + rest, Self.outcome(404, "not-supported"))
        }
        guard let bearer = request.bearer, s.accessTokens.contains(bearer) else {
            return (label, ScriptedReply(status: 401, headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\"")]))
        }
        if var statuses = s.failures[label], !statuses.isEmpty {
            let status = statuses.removeFirst()
            s.failures[label] = statuses
            return (label, Self.outcome(status, "transient", "scripted failure"))
        }
        guard let served else {
            return (label, .json(200, ServedResource.patient(patient, name: configuration.patientName).json))
        }
        let size = max(1, configuration.pageSize)
        let start = min((page - 1) * size, served.count)
        let slice = served[start..<min(start + size, served.count)]
        var links = [#"{"relation":"self","url":"\#(origin + request.uri)"}"#]
        if start + size < served.count {
            // An absolute link on the provider's origin, as most servers write them.
            let next = label.hasPrefix("$everything")
                ? "\(origin)/fhir/Patient/\(patient)/$everything?page=\(page + 1)" : "\(origin)/fhir/\(rest)?patient=\(patient)&page=\(page + 1)"
            links.append(#"{"relation":"next","url":"\#(next)"}"#)
        }
        let entries = slice.map { #"{"fullUrl":"\#(origin)/fhir/\#($0.type)/\#($0.id)","resource":\#($0.json),"search":{"mode":"match"}}"# }
        let bundle = #"{"resourceType":"Bundle","type":"searchset","total":\#(served.count),"link":[\#(links.joined(separator: ","))],"entry":[\#(entries.joined(separator: ","))]}"#
        return (label, .json(200, bundle))
    }

    private func capabilityStatement(_ origin: String) -> String {
        let everything =
            configuration.offersEverything
            ? #","operation":[{"name":"everything","definition":"http://hl7.org/fhir/OperationDefinition/Patient-everything"}]"# : ""
        let resources =
            [#"{"type":"Patient","interaction":[{"code":"read"}]\#(everything)}"#]
            + configuration.searches.keys.sorted().map { #"{"type":\#(Self.quoted($0)),"interaction":[{"code":"search-type"}]}"# }
        let security = #"""
            {"extension":[{"url":"http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris","extension":[\#
            {"url":"authorize","valueUri":\#(Self.quoted(origin + "/authorize"))},{"url":"token","valueUri":\#(Self.quoted(origin + "/token"))}]}]}
            """#
        return #"""
            {"resourceType":"CapabilityStatement","status":"active","date":"2024-01-01","kind":"instance","fhirVersion":"4.0.1",\#
            "format":["json"],"publisher":\#(Self.quoted(configuration.publisher)),\#
            "rest":[{"mode":"server","security":\#(security),"resource":[\#(resources.joined(separator: ","))]}]}
            """#
    }

    private func smartConfiguration(_ origin: String) -> String {
        let methods = configuration.challengeMethods.map(Self.quoted).joined(separator: ",")
        return #"""
            {"authorization_endpoint":\#(Self.quoted(origin + "/authorize")),"token_endpoint":\#(Self.quoted(origin + "/token")),\#
            "code_challenge_methods_supported":[\#(methods)],"grant_types_supported":["authorization_code","refresh_token"],\#
            "token_endpoint_auth_methods_supported":["none"],\#
            "capabilities":["launch-standalone","client-public","context-standalone-patient","permission-offline","permission-patient"]}
            """#
    }

    /// Approves at once: the sign-in page's "continue" link back to the app, as the body (the
    /// test's browser follows it; the client never follows redirects itself).
    private func authorize(_ request: ReceivedRequest, _ s: inout State) -> ScriptedReply {
        guard request.query("response_type") == "code", request.query("client_id") == configuration.clientID,
            request.query("aud") == "http://127.0.0.1:\(s.port)/fhir", request.query("code_challenge_method") == "S256",
            let challenge = request.query("code_challenge"), PKCE.isValidChallenge(challenge), let redirect = request.query("redirect_uri"),
            let state = request.query("state"), !state.isEmpty
        else { return ScriptedReply(status: 400, body: "bad authorization request") }
        if configuration.deniesSignIn {
            return ScriptedReply(status: 200, headers: [("Content-Type", "text/plain")], body: redirect + "?error=access_denied&state=" + Self.encode(state))
        }
        s.issuedCount += 1
        let code = "code-\(s.issuedCount)"
        s.codes[code] = (challenge, redirect)
        return ScriptedReply(status: 200, headers: [("Content-Type", "text/plain")], body: redirect + "?code=" + Self.encode(code) + "&state=" + Self.encode(state))
    }

    private func token(_ request: ReceivedRequest, _ s: inout State) -> ScriptedReply {
        let form = request.form
        guard form["client_id"] == configuration.clientID else { return Self.oauthError(401, "invalid_client") }
        switch form["grant_type"] {
        case "authorization_code":
            // A code is good once, with the redirect URI it was issued for and the verifier
            // whose challenge came with it.
            guard let code = form["code"], let issued = s.codes.removeValue(forKey: code), form["redirect_uri"] == issued.redirectURI,
                let verifier = form["code_verifier"], PKCE.verify(verifier: verifier, challenge: issued.challenge)
            else { return Self.oauthError(400, "invalid_grant") }
            return tokenAnswer(Self.issue(&s, rotating: nil))
        case "refresh_token":
            guard let refresh = form["refresh_token"], s.refreshTokens.contains(refresh) else { return Self.oauthError(400, "invalid_grant") }
            return tokenAnswer(Self.issue(&s, rotating: refresh))
        default:
            return Self.oauthError(400, "unsupported_grant_type")
        }
    }

    private func tokenAnswer(_ issued: Issued) -> ScriptedReply {
        let refresh = issued.refresh.map { #","refresh_token":\#(Self.quoted($0))"# } ?? ""
        let body = #"""
            {"access_token":\#(Self.quoted(issued.access)),"token_type":"Bearer","expires_in":\#(configuration.accessLifetime),\#
            "scope":"launch/patient offline_access patient/*.rs","patient":\#(Self.quoted(configuration.patient))\#(refresh)}
            """#
        return .json(200, body, type: "application/json")
    }

    /// New tokens; a refresh token used is spent (rotated), as careful providers do.
    private static func issue(_ s: inout State, rotating spent: String?) -> Issued {
        s.issuedCount += 1
        let tokens = Issued(access: "access-\(s.issuedCount)", refresh: "refresh-\(s.issuedCount)")
        if let spent { s.refreshTokens.remove(spent) }
        s.accessTokens.insert(tokens.access)
        if let refresh = tokens.refresh { s.refreshTokens.insert(refresh) }
        s.issued.append(tokens)
        return tokens
    }

    private static func oauthError(_ status: Int, _ error: String) -> ScriptedReply {
        .json(status, #"{"error":"\#(error)","error_description":"scripted provider"}"#, type: "application/json")
    }

    private static func outcome(_ status: Int, _ code: String, _ text: String? = nil) -> ScriptedReply {
        .json(status, #"{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"\#(code)","diagnostics":"\#(text ?? code)"}]}"#)
    }

    /// A JSON string literal of some text.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    private static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}
