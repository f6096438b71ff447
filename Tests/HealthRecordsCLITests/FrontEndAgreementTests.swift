import ClinicalRecords
import FHIR
import Foundation
import HealthVocabulary
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The CLI and the server share one vocabulary: for the same query over the same store,
/// `healthrecords records --json` and `GET /records` return the same records as the same JSON,
/// dates follow one rule, and a bad value gets the same message (naming the flag in the CLI).
@Suite struct FrontEndAgreementTests {
    let dir = TemporaryDirectory()
    var environment: [String: String] { ["HEALTHRECORDS_STORE": dir.path("store.sqlite"), "XDG_RUNTIME_DIR": dir.url.path] }
    var cli: CommandRunner { CommandRunner(environment: environment) }

    static let types = "allergy,condition,immunization,lab-result,medication,procedure,vital-sign,personal-details"

    static func lab(_ id: String, _ date: String, _ value: String = "5.40") -> String {
        #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"laboratory"}]}],"code":{"text":"Lab \#(id)"},"effectiveDateTime":"\#(date)","valueQuantity":{"value":\#(value),"unit":"mmol/L"}}"#
    }

    static func condition(_ id: String, _ date: String) -> String {
        #"{"resourceType":"Condition","id":"\#(id)","code":{"text":"Condition \#(id)"},"onsetDateTime":"\#(date)"}"#
    }

    static func bundle(_ resources: [String]) -> String {
        #"{"resourceType":"Bundle","type":"collection","entry":["# + resources.map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}"
    }

    /// Two sources: labs at instants and on whole days on both sides of 1 March 2020,
    /// conditions, an immunization, a vital sign and a Patient.
    func fill() throws {
        try dir.write("north.json", Self.bundle([
            Self.condition("c1", "2020-02-01"), Self.condition("c2", "2019-07-15"), Self.lab("l1", "2020-03-01T08:00:00Z"),
            Self.lab("l2", "2020-03-01T12:00:00Z", "7.0"), Self.lab("l3", "2020-03-02"),
            #"{"resourceType":"Immunization","id":"i1","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}],"text":"COVID-19"},"occurrenceDateTime":"2021-01-02"}"#,
            #"{"resourceType":"Patient","id":"p1","birthDate":"1980-05-06","name":[{"text":"Robin Example"}]}"#,
        ]))
        try dir.write("lab.json", Self.bundle([
            Self.lab("l4", "2020-02-29T23:00:00Z", "120.50"),
            #"{"resourceType":"Observation","id":"v1","category":[{"coding":[{"code":"vital-signs"}]}],"code":{"text":"Pulse"},"effectiveDateTime":"2020-06-01","valueQuantity":{"value":61,"unit":"/min"}}"#,
        ]))
        #expect(try cli.run(["import", dir.path("north.json"), "--source", "clinic/north"]).status == 0)
        #expect(try cli.run(["import", dir.path("lab.json"), "--source", "lab"]).status == 0)
    }

    /// (server query, CLI flags, the ids expected — in order when the order is defined).
    static let recordQueries: [(String, [String], [String], ordered: Bool)] = [
        ("type=lab-result", ["--type", "lab-result"], ["l1", "l2", "l3", "l4"], false),
        // A date-only `to` includes its whole day: both labs of 1 March, not the one of 2 March.
        ("type=lab-result&from=2020-03-01&to=2020-03-01", ["--type", "lab-result", "--from", "2020-03-01", "--to", "2020-03-01"], ["l1", "l2"], false),
        // An instant `to` is exclusive: the lab at exactly 12:00 is not included.
        ("type=lab-result&to=2020-03-01T12:00:00Z", ["--type", "lab-result", "--to", "2020-03-01T12:00:00Z"], ["l1", "l4"], false),
        ("type=lab-result&from=2020-03-01T08:00:00Z&to=1583064000", ["--type", "lab-result", "--from", "2020-03-01T08:00:00Z", "--to", "1583064000"], ["l1"], false),
        ("source=lab", ["--source", "lab"], ["l4", "v1"], false),
        ("source=clinic%2Fnorth&type=condition&sort=-clinical", ["--source", "clinic/north", "--type", "condition", "--sort", "clinical", "--descending"], ["c1", "c2"], true),
        ("limit=2&sort=clinical", ["--limit", "2", "--sort", "clinical"], ["c2", "c1"], true),
        ("resourceType=Observation&from=2020&to=2020&sort=-added", ["--resource-type", "Observation", "--from", "2020", "--to", "2020", "--sort", "added", "--descending"],
         ["l1", "l2", "l3", "l4", "v1"], false),
        ("addedFrom=2000&addedTo=2100-01-01", ["--added-from", "2000", "--added-to", "2100-01-01"], ["c1", "c2", "l1", "l2", "l3", "i1", "l4", "v1"], false),
        ("type=allergy", ["--type", "allergy"], [], false),
    ]

    @Test func theCLIAndTheServerAnswerTheSameQueryWithTheSameJSON() async throws {
        try fill()
        let registered = try cli.run(["apps", "register", "--name", "Agreement", "--purpose", "p", "--privacy-url", "https://e.org/p", "--types", Self.types, "--json"])
        // Once, under a full parallel run, this printed nothing: say what the command said.
        try #require(registered.status == 0, "apps register exited \(registered.status): \(registered.stderr)")
        let app = try JSONReader().read(registered.stdout)
        let appID = try #require(app["appId"]?.stringValue)
        let secret = try #require(app["secret"]?.stringValue)
        #expect(try cli.run(["apps", "grant", appID, "--allow", Self.types, "--new-data", "share"]).status == 0)

        let server = try ServeProcess(["--log-level", "error", "--person-token-file", try dir.write("person.token", "agreement-person-token-0123456789")], environment: environment)
        let http = HTTP(base: server.base)
        let token = try await http.token(appID: appID, secret: secret)

        for (query, flags, expected, ordered) in Self.recordQueries {
            let (status, body) = try await http.get("/records?\(query)", token: token)
            #expect(status == 200, "\(query): \(String(decoding: body, as: UTF8.self))")
            let served = try #require(try JSONReader().read(body)["records"])
            let asApp = try cli.run(["records", "--as-app", appID, "--json"] + flags)
            let owner = try cli.run(["records", "--json"] + flags)
            #expect(asApp.status == 0 && owner.status == 0, "\(flags): \(asApp.stderr) \(owner.stderr)")
            #expect(Canonical.text(served) == Canonical.text(try JSONReader().read(asApp.stdout)), "\(query)")
            #expect(Canonical.text(served) == Canonical.text(try JSONReader().read(owner.stdout)), "\(query)")
            let ids = served.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            if ordered { #expect(ids == expected, "\(query)") } else { #expect(Set(ids) == Set(expected) && ids.count == expected.count, "\(query): \(ids)") }
        }

        // A record and a context resource by identity.
        for (path, flags) in [
            ("/records/clinic%2Fnorth/Observation/l1", ["--source", "clinic/north", "--resource-type", "Observation", "--id", "l1"]),
            ("/records/clinic%2Fnorth/Patient/p1", ["--source", "clinic/north", "--resource-type", "Patient", "--id", "p1"]),
        ] {
            let (status, body) = try await http.get(path, token: token)
            #expect(status == 200)
            let shown = try cli.run(["show", "--json"] + flags)
            #expect(Canonical.text(try JSONReader().read(body)) == Canonical.text(try JSONReader().read(shown.stdout)), "\(path)")
        }

        // Change feeds, page by page: the CLI under --as-app hands out the app's own anchors.
        var anchor: String? = nil
        for _ in 0..<3 {
            let query = "type=lab-result&limit=3" + (anchor.map { "&anchor=\($0)" } ?? "")
            let (status, body) = try await http.get("/changes?\(query)", token: token)
            #expect(status == 200)
            let served = try JSONReader().read(body)
            let printed = try cli.run(["changes", "--as-app", appID, "--type", "lab-result", "--limit", "3", "--json"] + (anchor.map { ["--anchor", $0] } ?? []))
            #expect(Canonical.text(served) == Canonical.text(try JSONReader().read(printed.stdout)))
            anchor = try #require(served["anchor"]?.stringValue)
        }

        // A bad value: the same typed error, the parameter named as each front end names it.
        let flag = { (name: ParameterName) in "--" + name.rawValue.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined() }
        for (query, flags, error) in [
            ("to=yesterday", ["--to", "yesterday"], ParameterError.notADate(.to, value: "yesterday")),
            ("resourceType=no%20such", ["--resource-type", "no such"], .notAResourceType(.resourceType, value: "no such")),
            ("from=2021&to=2020", ["--from", "2021", "--to", "2020"], .emptyRange(from: .from, fromValue: "2021", to: .to, toValue: "2020")),
            ("limit=-1", ["--limit=-1"], .notACount(.limit, value: "-1")),
            ("type=lab", ["--type", "lab"], .notOneOf(.type, value: "lab", choices: ClinicalType.allCases.map(\.name))),
        ] {
            let (status, body) = try await http.get("/records?\(query)", token: token)
            #expect(status == 400)
            #expect(try JSONReader().read(body)["message"]?.stringValue == error.message(), "\(query)")
            let printed = try cli.run(["records"] + flags)
            #expect(printed.status == 2)
            #expect(printed.stderr == "error: \(error.message(naming: flag))\n", "\(query)")
        }
        server.terminate()
    }
}

extension FrontEndAgreementTests {
    /// `cards --json` writes a card with the keys the app API hands an app (openapi.json,
    /// `VerifiableRecord`), then what only the owner sees.
    @Test func cardsCarryTheAppAPIKeysThenTheOwnersOwn() throws {
        let spec = FixtureFiles.url("vectors/shc-spec").path
        let imported = try cli.run([
            "import", "\(spec)/example-00-e-file.smart-health-card", "--at", "2023-07-01", "--offline",
            "--issuer-files", "https://spec.smarthealth.cards/examples/issuer=\(spec)/issuer",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let card = try #require(try JSONReader().read(try cli.run(["cards", "--json"]).stdout)[0]?.objectValue)
        #expect(card.keys == [
            "id", "sourceType", "issuerIdentifier", "recordTypes", "itemNames", "subject", "issuedDate", "relevantDate", "expirationDate",
            "addedDate", "status", "trusted", "dataRepresentation",
        ])
        #expect(card["issuerIdentifier"]?.stringValue == "https://spec.smarthealth.cards/examples/issuer")
        #expect(card["dataRepresentation"]?.stringValue?.split(separator: ".").count == 3)
        #expect(card["status"]?.stringValue == "verified")
    }
}

/// JSON text with every object's members sorted by key, so two answers compare by content.
enum Canonical {
    static func text(_ value: JSONValue) -> String { JSONWriter.minifiedString(sorted(value)) }

    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o): return .object(JSONObject(o.members.sorted { $0.key < $1.key }.map { JSONMember($0.key, sorted($0.value)) }))
        case .array(let a): return .array(a.map(sorted))
        default: return value
        }
    }
}

/// Plain HTTP to the server under test.
struct HTTP {
    let base: String

    func get(_ path: String, token: String) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
    }

    /// An access token by OAuth2 client credentials.
    func token(appID: String, secret: String) async throws -> String {
        var request = URLRequest(url: URL(string: base + "/token")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let encode = { (s: String) in s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }
        request.httpBody = Data("grant_type=client_credentials&client_id=\(encode(appID))&client_secret=\(encode(secret))".utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        return try #require(try JSONReader().read(body)["access_token"]?.stringValue)
    }
}
