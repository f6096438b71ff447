import FHIR
import Foundation
import Testing
import TestSupport

/// Store commands against PostgreSQL (`--postgres URL`), run when `HEALTHRECORDS_POSTGRES_URL`
/// names a server; each test is a new person there.
@Suite(.enabled(if: PostgresServer.url != nil, "HEALTHRECORDS_POSTGRES_URL is not set"))
struct CLIPostgresTests {
    static var serverURL: String? { PostgresServer.url }

    let dir = TemporaryDirectory()
    let person = "cli-\(UUID().uuidString)"
    var cli: CommandRunner { CommandRunner(environment: ["XDG_RUNTIME_DIR": dir.url.path]) }

    /// The server URL naming this test's person.
    var url: String {
        let base = Self.serverURL ?? ""
        return base + (base.contains("?") ? "&" : "?") + "person=\(person)"
    }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    @Test func importsListsChangesAndDeletesInAPersonsStore() throws {
        let synthea = FixtureFiles.url("data/fhir/synthea/Luigi_Wiegand_e27d88b0-c5e5-4042-ad49-184f6a900ee3.json").path
        let first = try cli.run(["import", synthea, "--postgres", url, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let inserted = try #require(try json(first)["inserted"]?.numberValue?.intValue)
        #expect(inserted > 0)
        let again = try json(try cli.run(["import", synthea, "--postgres", url, "--json"]))
        #expect(again["unchanged"]?.numberValue?.intValue == inserted)

        let labs = try json(try cli.run(["records", "--type", "lab-result", "--postgres", url, "--json"]))
        #expect((labs.arrayValue?.count ?? 0) > 0)
        let all = try json(try cli.run(["changes", "--postgres", url, "--json"]))
        #expect(all["added"]?.arrayValue?.count == inserted)
        let anchor = try #require(all["anchor"]?.stringValue)
        let source = "Luigi_Wiegand_e27d88b0-c5e5-4042-ad49-184f6a900ee3.json"
        let deleted = try cli.run(["delete", "--source", source, "--postgres", url])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let since = try json(try cli.run(["changes", "--anchor", anchor, "--postgres", url, "--json"]))
        #expect(since["deleted"]?.arrayValue?.count == inserted)
        #expect(try json(try cli.run(["records", "--postgres", url, "--json"])).arrayValue?.isEmpty == true)
        // Another person in the same database has nothing.
        let other = (Self.serverURL ?? "") + ((Self.serverURL ?? "").contains("?") ? "&" : "?") + "person=cli-\(UUID().uuidString)"
        #expect(try json(try cli.run(["changes", "--postgres", other, "--json"]))["anchor"]?.stringValue == "0")
    }

    @Test func appsAndAnEncryptedStoreWorkThroughPostgres() throws {
        let key = try dir.write("store.key", Data(repeating: 9, count: 32))
        try dir.write("a.json", #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}},{"resource":{"resourceType":"AllergyIntolerance","id":"a1","code":{"text":"Peanut"}}}]}"#)
        #expect(try cli.run(["import", dir.path("a.json"), "--source", "clinic", "--postgres", url, "--key-file", key]).status == 0)
        let locked = try cli.run(["records", "--postgres", url])
        #expect(locked.status == 1)
        #expect(locked.stderr.hasPrefix("error: store locked: postgres://"))
        #expect(try cli.run(["unlock", "--postgres", url, "--key-file", key]).status == 0)

        let reg = try cli.run([
            "apps", "register", "--name", "Tracker", "--purpose", "Charts", "--privacy-url", "https://e.org/p", "--types", "condition,allergy",
            "--postgres", url, "--json",
        ])
        #expect(reg.status == 0, "\(reg.stderr)")
        let app = try #require(try json(reg)["appId"]?.stringValue)
        #expect(try cli.run(["apps", "grant", app, "--allow", "condition", "--deny", "allergy", "--new-data", "share", "--postgres", url]).status == 0)
        let seen = try json(try cli.run(["records", "--as-app", app, "--postgres", url, "--json"]))
        #expect(seen.arrayValue?.compactMap { $0["id"]?.stringValue } == ["c1"])
        #expect(try cli.run(["lock", "--postgres", url]).status == 0)
        #expect(try cli.run(["records", "--postgres", url]).status == 1)
    }

    @Test func postgresAndStoreTogetherOrNoPersonAreUsageErrors() throws {
        let both = try cli.run(["records", "--store", dir.path("s.sqlite"), "--postgres", url])
        #expect(both.status == 2)
        let noPerson = try cli.run(["records", "--postgres", "postgres://postgres@127.0.0.1:1/db"])
        #expect(noPerson.status == 2)
        #expect(noPerson.stderr.contains("person"))
        let closed = try cli.run(["records", "--postgres", "postgres://someone:hunter2@127.0.0.1:1/db?person=p"])
        #expect(closed.status == 2)
        #expect(closed.stderr.contains("cannot open store at postgres://someone@127.0.0.1:1/db"))
        #expect(!closed.stderr.contains("hunter2"))
    }
}

/// The PostgreSQL server the tests may use.
enum PostgresServer {
    static let url = ProcessInfo.processInfo.environment["HEALTHRECORDS_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
}
