import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct CLIImportTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    @Test func importsReportsAndReimportsNothing() throws {
        let synthea = Corpus.url("data/fhir/synthea").path
        let first = try cli.run(["import", synthea, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try json(first)
        // Counted by an independent script over the same files (the full corpus's 15 people, or
        // the repository's 3).
        let records = Corpus.isFull ? 2095 : 250
        #expect(report["inserted"]?.numberValue?.intValue == records)
        #expect(report["failed"]?.numberValue?.intValue == 0)
        #expect(report["files"]?.arrayValue?.count == Corpus.files("data/fhir/synthea", extensions: ["json"]).count)
        for key in ["updated", "unchanged", "skipped"] { #expect(report[key] != nil) }
        let second = try json(try cli.run(["import", synthea, "--json"]))
        #expect(second["inserted"]?.numberValue?.intValue == 0)
        #expect(second["updated"]?.numberValue?.intValue == 0)
        #expect(second["unchanged"]?.numberValue?.intValue == records)
    }

    @Test func exitsWithOneWhenAFileFailsAndTwoOnUsageErrors() throws {
        let good = try dir.write("good.json", #"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}"#)
        let bad = try dir.write("bad.json", #"{"resourceType":"Condition","id":"c2",,}"#)
        let r = try cli.run(["import", good, bad])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.json"))
        #expect(r.stderr.contains("byte 38"))
        let listed = try json(try cli.run(["records", "--json"]))
        #expect(listed.arrayValue?.map { $0["id"]?.stringValue } == ["c1"])
        #expect(try cli.run(["import"]).status == 2)
        #expect(try cli.run(["records", "--type", "nonsense"]).status == 2)
        #expect(try cli.run(["records", "--limit", "-3"]).status == 2)
        #expect(try cli.run(["frobnicate"]).status == 2)
    }

    @Test func listsRecordsAsJSONWithTheDocumentedKeys() throws {
        let path = FixtureFiles.url("data/fhir/r4-examples/observation-example-f001-glucose.json").path
        #expect(try cli.run(["import", path, "--source", "lab"]).status == 0)
        let list = try json(try cli.run(["records", "--type", "lab-result", "--json"]))
        let first = try #require(list.arrayValue?.first?.objectValue)
        #expect(first.keys == [
            "source", "sourceName", "resourceType", "id", "clinicalType", "displayName", "fhirVersion", "clinicalDate", "addedDate", "resource",
        ])
        #expect(first.string("source") == "lab")
        #expect(first.string("clinicalType") == "lab-result")
        #expect(first["resource"]?["id"]?.stringValue == first.string("id"))
        let table = try cli.run(["records"])
        #expect(table.output.contains("lab-result"))
        #expect(table.output.contains("1 record"))
    }

    @Test func showRawWritesTheImportedBytes() throws {
        let file = FixtureFiles.url("data/fhir/r4-examples/observation-example-f003-co2.json")
        #expect(try cli.run(["import", file.path]).status == 0)
        let raw = try cli.run(["show", "--source", file.lastPathComponent, "--resource-type", "Observation", "--id", "f003", "--raw"])
        #expect(raw.status == 0)
        #expect(raw.stdout == (try Data(contentsOf: file)))
        let missing = try cli.run(["show", "--source", "x", "--resource-type", "Observation", "--id", "nope"])
        #expect(missing.status == 1)
    }

    @Test func changesReportDeletionsSinceAnAnchor() throws {
        try dir.write("a.json", #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Condition","id":"c1"}},{"resource":{"resourceType":"Condition","id":"c2"}}]}"#)
        #expect(try cli.run(["import", dir.path("a.json"), "--source", "s"]).status == 0)
        let all = try json(try cli.run(["changes", "--type", "condition", "--json"]))
        #expect(all["added"]?.arrayValue?.count == 2)
        let anchor = try #require(all["anchor"]?.stringValue)
        #expect(all["added"]?.arrayValue?.allSatisfy { $0["anchor"]?.stringValue != nil } == true)
        #expect(try cli.run(["delete", "--source", "s", "--resource-type", "Condition", "--id", "c1"]).status == 0)
        let since = try json(try cli.run(["changes", "--type", "condition", "--anchor", anchor, "--json"]))
        #expect(since["added"]?.arrayValue?.isEmpty == true)
        #expect(since["deleted"]?.arrayValue?.map { $0["id"]?.stringValue } == ["c1"])
        #expect(since["deleted"]?[0]?["anchor"]?.stringValue == String(Int(anchor)! + 1))
        #expect(since["anchor"]?.stringValue == String(Int(anchor)! + 1))
    }

    @Test func printsTheImmunizationChecklist() throws {
        let path = FixtureFiles.url("data/fhir/synthea/Luigi_Wiegand_e27d88b0-c5e5-4042-ad49-184f6a900ee3.json").path
        #expect(try cli.run(["import", path]).status == 0)
        let list = try json(try cli.run(["immunizations", "--json"]))
        let antigens = try #require(list["antigens"]?.arrayValue)
        let measles = antigens.first { $0["name"]?.stringValue == "Measles" }
        #expect(measles != nil || antigens.contains { $0["name"]?.stringValue == "Hib" })
        #expect(antigens.allSatisfy { ($0["doses"]?.arrayValue?.count ?? 0) > 0 })
    }
}
