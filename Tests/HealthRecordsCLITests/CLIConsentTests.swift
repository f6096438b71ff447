import FHIR
import Foundation
import Testing
import TestSupport

/// Apps, grants, "ask" and the audit log through the command line.
@Suite struct CLIConsentTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner {
        CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite"), "XDG_RUNTIME_DIR": dir.url.path])
    }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    func ids(_ r: CommandRunner.Result) throws -> [String] {
        try json(r).arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() ?? []
    }

    @Test func appsSeeOnlyWhatTheyAreGrantedAndReadsAreAudited() throws {
        try dir.write("a.json", #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}},{"resource":{"resourceType":"AllergyIntolerance","id":"a1","code":{"text":"Peanut"}}}]}"#)
        #expect(try cli.run(["import", dir.path("a.json"), "--source", "clinic"]).status == 0)

        #expect(try cli.run(["apps", "register", "--name", "X", "--purpose", "p", "--privacy-url", "https://e.org/p", "--types", "condition,allergy", "--required", "condition,allergy"]).status == 1)
        #expect(try cli.run(["apps", "register", "--name", "X", "--purpose", "p", "--privacy-url", "https://e.org/p", "--types", "nonsense"]).status == 2)
        let reg = try cli.run([
            "apps", "register", "--name", "Tracker", "--purpose", "Charts", "--privacy-url", "https://e.org/p", "--types",
            "condition,allergy,immunization", "--required", "condition,allergy,immunization", "--json",
        ])
        #expect(reg.status == 0, "\(reg.stderr)")
        let app = try #require(try json(reg)["appId"]?.stringValue)
        #expect(try json(reg)["secret"]?.stringValue?.count ?? 0 >= 40)

        #expect(try cli.run(["apps", "status", app, "--types", "condition"]).output == "shouldRequest\n")
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])).isEmpty)

        let grant = try cli.run(["apps", "grant", app, "--allow", "condition,immunization", "--deny", "allergy"])
        #expect(grant.status == 0)
        #expect(grant.output.contains("a required type is denied"))
        let status = try cli.run(["apps", "status", app, "--types", "condition"])
        #expect(status.status == 1 && status.stderr == "error: required authorization denied\n")

        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])) == ["c1"])
        #expect(try ids(try cli.run(["records", "--as-app", app, "--type", "allergy", "--json"])).isEmpty)
        #expect(try ids(try cli.run(["records", "--json"])) == ["a1", "c1"])

        // Ask (the default): a condition added now waits for approval.
        try dir.write("b.json", #"{"resourceType":"Condition","id":"c2","code":{"text":"Gout"}}"#)
        #expect(try cli.run(["import", dir.path("b.json"), "--source", "clinic"]).status == 0)
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])) == ["c1"])
        let changes = try json(try cli.run(["changes", "--as-app", app, "--json"]))
        #expect(changes["added"]?.arrayValue?.count == 1)
        #expect(try cli.run(["apps", "approve", app]).status == 0)
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])) == ["c1", "c2"])

        let audit = try json(try cli.run(["audit", "--app", app, "--json"]))
        let entries = try #require(audit.arrayValue)
        #expect(entries.map { $0["operation"]?.stringValue ?? "" } == ["records", "records", "records", "records", "changes", "records"])
        #expect(entries.map { $0["count"]?.numberValue?.intValue ?? -1 } == [0, 1, 0, 1, 1, 2])
        #expect(entries.allSatisfy { $0["appId"]?.stringValue == app })

        let list = try json(try cli.run(["apps", "list", "--json"]))
        #expect(list.arrayValue?.first?["grants"]?.arrayValue?.count == 3)
        #expect(try cli.run(["apps", "revoke", app]).status == 0)
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])).isEmpty)
        #expect(try cli.run(["apps", "status", app, "--types", "condition"]).output == "shouldRequest\n")
        #expect(try cli.run(["records", "--as-app", "no-such-app"]).status == 1)
    }

    /// `apps grant --history`: a window ending now; records dated before it are not read.
    @Test func aGrantWithAHistoryWindowReadsOnlyRecentRecords() throws {
        let recent = Date().addingTimeInterval(-10 * 86_400).formatted(Date.ISO8601FormatStyle().year().month().day())
        try dir.write("w.json", """
            {"resourceType":"Bundle","type":"collection","entry":[
            {"resource":{"resourceType":"Condition","id":"recent","code":{"text":"Sprain"},"onsetDateTime":"\(recent)"}},
            {"resource":{"resourceType":"Condition","id":"old","code":{"text":"Measles"},"onsetDateTime":"2000-01-01"}}]}
            """)
        #expect(try cli.run(["import", dir.path("w.json"), "--source", "clinic"]).status == 0)
        let reg = try cli.run(["apps", "register", "--name", "W", "--purpose", "p", "--privacy-url", "https://e.org/p", "--types", "condition", "--json"])
        let app = try #require(try json(reg)["appId"]?.stringValue)
        for bad in ["forever", "0d", "30", "101y"] {
            let r = try cli.run(["apps", "grant", app, "--allow", "condition", "--history", bad])
            #expect(r.status == 2, "\(bad): \(r.stderr)")
        }
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])).isEmpty)
        #expect(try cli.run(["apps", "grant", app, "--allow", "condition", "--history", "30d", "--new-data", "share"]).status == 0)
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])) == ["recent"])
        let list = try json(try cli.run(["apps", "list", "--json"]))
        #expect(list.arrayValue?.first?["grants"]?.arrayValue?.first?["history"]?.stringValue == "30d")
        #expect(try cli.run(["apps", "list"]).output.contains("condition (30d)"))
        #expect(try cli.run(["apps", "grant", app, "--allow", "condition", "--history", "all", "--new-data", "share"]).status == 0)
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])) == ["old", "recent"])
    }

    /// `apps review`: the apps that can read, keep and narrow, the settings.
    @Test func appsReviewListsKeepsAndNarrows() throws {
        try dir.write("r.json", #"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"onsetDateTime":"2001-01-01"}"#)
        #expect(try cli.run(["import", dir.path("r.json"), "--source", "clinic"]).status == 0)
        let reg = try cli.run(["apps", "register", "--name", "R", "--purpose", "p", "--privacy-url", "https://e.org/p", "--types", "condition", "--json"])
        let app = try #require(try json(reg)["appId"]?.stringValue)
        #expect(try cli.run(["apps", "grant", app, "--allow", "condition", "--new-data", "share"]).status == 0)
        _ = try cli.run(["records", "--as-app", app, "--json"])
        let review = try json(try cli.run(["apps", "review", "--json"]))
        #expect(review["intervalDays"]?.numberValue?.intValue == 90 && review["expireUnconfirmed"]?.boolValue == false)
        let first = try #require(review["apps"]?.arrayValue?.first)
        #expect(first["appId"]?.stringValue == app && first["isDue"]?.boolValue == false)
        #expect(first["lastRead"]?["operation"]?.stringValue == "records")
        #expect(first["reads"]?.arrayValue?.first?["history"]?.stringValue == "all")
        #expect(try cli.run(["apps", "review", "--narrow", app]).status == 2)
        #expect(try cli.run(["apps", "review", "--every", "3"]).status == 2)
        let narrowed = try cli.run(["apps", "review", "--narrow", app, "--history", "1y", "--every", "30", "--expire-unconfirmed", "on"])
        #expect(narrowed.status == 0, "\(narrowed.stderr)")
        #expect(narrowed.output.contains("condition (1y)") && narrowed.output.contains("review every 30 days"))
        #expect(try ids(try cli.run(["records", "--as-app", app, "--json"])).isEmpty, "the 2001 condition is outside a year")
        #expect(try cli.run(["apps", "review", "--keep", "no-such-app"]).status == 1)
    }

    /// `medications nickname|archive|restore` and the list showing them.
    @Test func medicationsCanBeNicknamedAndArchived() throws {
        try dir.write("m.json", #"{"resourceType":"MedicationStatement","id":"m1","status":"active","medicationCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"314076","display":"Lisinopril 10 MG"}]}}"#)
        #expect(try cli.run(["import", dir.path("m.json"), "--source", "clinic"]).status == 0)
        let list = try json(try cli.run(["medications", "--json"]))
        let id = try #require(list.arrayValue?.first?["id"]?.stringValue)
        #expect(list.arrayValue?.first?["archived"]?.boolValue == false)
        #expect(try cli.run(["medications", "nickname", id, "Blood pressure"]).status == 0)
        #expect(try cli.run(["medications", "archive", id]).status == 0)
        #expect(try cli.run(["medications", "archive", "nope"]).status == 1)
        let table = try cli.run(["medications"]).output
        #expect(table.contains("Blood pressure (Lisinopril 10 MG) [archived]"), "\(table)")
        #expect(try cli.run(["medications", "restore", id]).status == 0)
        let again = try json(try cli.run(["medications", "list", "--json"]))
        #expect(again.arrayValue?.first?["nickname"]?.stringValue == "Blood pressure" && again.arrayValue?.first?["archived"]?.boolValue == false)
    }
}
