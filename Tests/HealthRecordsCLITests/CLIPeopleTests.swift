import FHIR
import Foundation
import Testing
import TestSupport

/// `healthrecords people` and `--people DIR --person ID` / `--postgres URL --person ID`: each
/// person's records stay in their own store, removal asks first and removes that person's data
/// and nothing else, and an unknown or malformed id opens nothing.
@Suite struct CLIPeopleTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["XDG_RUNTIME_DIR": dir.url.path]) }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    /// The ways to name the people of a server: a folder, and (when configured) a PostgreSQL database.
    static var places: [String] { ["sqlite"] + (PostgresServer.url != nil ? ["postgres"] : []) }

    func where_(_ place: String) -> [String] {
        place == "sqlite" ? ["--people", dir.path("people")] : ["--postgres", PostgresServer.url ?? ""]
    }

    @Test(arguments: places)
    func peopleHaveStoresOfTheirOwn(place: String) throws {
        let at = where_(place)
        let ana = try json(try cli.run(["people", "add", "Ana", "--json"] + at))
        let ben = try json(try cli.run(["people", "add", "  Ben  ", "--json"] + at))
        let anaID = try #require(ana["id"]?.stringValue)
        let benID = try #require(ben["id"]?.stringValue)
        #expect(ben["name"]?.stringValue == "Ben" && anaID != benID)
        let listed = try #require(try json(try cli.run(["people", "list", "--json"] + at)).arrayValue)
        #expect(listed.compactMap { $0["id"]?.stringValue }.filter { [anaID, benID].contains($0) } == [anaID, benID])
        #expect(try cli.run(["people", "add", "  "] + at).status == 2)

        try dir.write("ana.json", #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}}]}"#)
        let imported = try cli.run(["import", dir.path("ana.json"), "--source", "clinic", "--person", anaID, "--json"] + at)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try json(try cli.run(["records", "--person", anaID, "--json"] + at)).arrayValue?.count == 1)
        #expect(try json(try cli.run(["records", "--person", benID, "--json"] + at)).arrayValue?.isEmpty == true)

        // An id nobody has opens nothing (and makes no store); a malformed one neither.
        for id in ["p-0000000000000000", "../people", "P-ABCDEF0123456789"] {
            let r = try cli.run(["records", "--person", id] + at)
            #expect(r.status == 1 && r.stderr.contains("no person"), "\(id): \(r.stderr)")
        }
        if place == "sqlite" { #expect(!FileManager.default.fileExists(atPath: dir.path("people/p-0000000000000000.sqlite"))) }

        // Removal asks; a wrong answer removes nothing.
        let refused = try cli.run(["people", "remove", anaID] + at, stdin: Data("no\n".utf8))
        #expect(refused.status == 1 && refused.stderr.contains("not removed: the answer was not \(anaID)"), "\(refused.stderr)")
        let unanswered = try cli.run(["people", "remove", anaID] + at, stdin: Data())
        #expect(unanswered.status == 1 && unanswered.stderr.contains("no answer on standard input"), "\(unanswered.stderr)")
        #expect(try json(try cli.run(["records", "--person", anaID, "--json"] + at)).arrayValue?.count == 1)
        let removed = try cli.run(["people", "remove", anaID] + at, stdin: Data("\(anaID)\n".utf8))
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try cli.run(["records", "--person", anaID] + at).status == 1)
        if place == "sqlite" { #expect(!FileManager.default.fileExists(atPath: dir.path("people/\(anaID).sqlite"))) }
        // Ben is untouched.
        try dir.write("ben.json", #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"AllergyIntolerance","id":"a1","code":{"text":"Peanut"}}}]}"#)
        #expect(try cli.run(["import", dir.path("ben.json"), "--source", "clinic", "--person", benID] + at).status == 0)
        #expect(try json(try cli.run(["records", "--person", benID, "--json"] + at)).arrayValue?.count == 1)
        #expect(try cli.run(["people", "remove", benID, "--yes"] + at).status == 0)
        #expect(try cli.run(["people", "remove", benID, "--yes"] + at).status == 1)
    }

    @Test(arguments: places)
    func theOperatorsCatalogueListsAppsForEveryone(place: String) throws {
        let at = where_(place)
        let register = ["apps", "register", "--catalogue", "--name", "Clinic app", "--purpose", "Labs for your clinic", "--privacy-url", "https://clinic.example/p",
                        "--types", "lab-result", "--json"]
        let made = try json(try cli.run(register + at))
        let appID = try #require(made["appId"]?.stringValue)
        #expect(made["secret"]?.stringValue?.isEmpty == false)
        let listed = try #require(try json(try cli.run(["apps", "catalogue", "list", "--json"] + at)).arrayValue)
        #expect(listed.contains { $0["appId"]?.stringValue == appID && $0["name"]?.stringValue == "Clinic app" })
        // Not with a person's store, and checked like any registration.
        let person = try #require(try json(try cli.run(["people", "add", "Dee", "--json"] + at))["id"]?.stringValue)
        #expect(try cli.run(register + at + ["--person", person]).status == 2)
        #expect(try cli.run(["apps", "register", "--catalogue", "--name", "X", "--purpose", "Y", "--privacy-url", "ftp://x", "--types", "lab-result"] + at).status != 0)
        #expect(try cli.run(["apps", "catalogue", "remove", appID] + at).status == 0)
        #expect(try cli.run(["apps", "catalogue", "remove", appID] + at).status == 1)
        #expect(try json(try cli.run(["apps", "catalogue", "list", "--json"] + at)).arrayValue?.contains { $0["appId"]?.stringValue == appID } == false)
    }

    @Test func anInviteIsALinkOnThePublicURLForAKnownPerson() throws {
        let at = where_("sqlite")
        let id = try #require(try json(try cli.run(["people", "add", "Cleo", "--json"] + at))["id"]?.stringValue)
        let one = try json(try cli.run(["people", "invite", id, "--public-url", "https://health.example", "--hours", "2", "--json"] + at))
        let two = try json(try cli.run(["people", "invite", id, "--public-url", "https://health.example/", "--json"] + at))
        let url = try #require(one["url"]?.stringValue)
        #expect(url.hasPrefix("https://health.example/p/\(id)/enrol?token=") && url != two["url"]?.stringValue)
        #expect(two["url"]?.stringValue?.hasPrefix("https://health.example/p/\(id)/enrol?token=") == true)
        let expires = try #require(one["expires"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(abs(expires.timeIntervalSinceNow - 7200) < 120)
        let unknown = try cli.run(["people", "invite", "p-0000000000000000", "--public-url", "https://health.example"] + at)
        #expect(unknown.status == 1 && unknown.stderr.contains("no person"))
        #expect(try cli.run(["people", "invite", id, "--public-url", "ftp://x", "--hours", "2"] + at).status == 2)
        #expect(try cli.run(["people", "invite", id, "--public-url", "https://health.example", "--hours", "500"] + at).status == 2)
    }

    @Test func theOptionsMustNameOnePersonInOnePlace() throws {
        let cases: [([String], String)] = [
            (["records", "--people", dir.path("p")], "--people DIR needs --person ID"),
            (["records", "--person", "p-0000000000000000"], "--person ID goes with --people DIR or --postgres URL"),
            (["records", "--people", dir.path("p"), "--store", dir.path("s.sqlite"), "--person", "p-0000000000000000"], "not two"),
            (["people", "list"], "give --people DIR or --postgres URL"),
        ]
        for (arguments, message) in cases {
            let r = try cli.run(arguments)
            #expect(r.status == 2 && r.stderr.contains(message), "\(arguments): \(r.status) \(r.stderr)")
        }
    }
}
