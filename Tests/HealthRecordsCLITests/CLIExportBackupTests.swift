import FHIR
import Foundation
import Testing
import TestSupport

/// `export`, `import` of an export, `backup` and `restore` as people run them.
@Suite struct CLIExportBackupTests {
    let dir = TemporaryDirectory()

    func cli(_ store: String) -> CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path(store)]) }
    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    /// (source, type, id, resource text) of every record, as `records --json` lists them.
    func records(_ store: String) throws -> [String] {
        let list = try json(try cli(store).run(["records", "--json"]))
        return (list.arrayValue ?? []).map { r in
            "\(r["source"]?.stringValue ?? "")|\(r["sourceName"]?.stringValue ?? "")|\(r["resourceType"]?.stringValue ?? "")|\(r["id"]?.stringValue ?? "")|\(r["displayName"]?.stringValue ?? "")"
        }.sorted()
    }

    @Test func exportThenImportIntoAFreshStore() throws {
        let spec = FixtureFiles.url("vectors/shc-spec").path
        let iss = "https://spec.smarthealth.cards/examples/issuer"
        let a = cli("a.sqlite")
        #expect(try a.run(["import", FixtureFiles.url("data/fhir/synthea/Luigi_Wiegand_e27d88b0-c5e5-4042-ad49-184f6a900ee3.json").path]).status == 0)
        #expect(try a.run(["import", FixtureFiles.url("data/fhir/dstu2/synthea/Fadel_Isiah_1.json").path, "--source", "Harbor Clinic"]).status == 0)
        let card = try a.run(["import", "\(spec)/example-00-e-file.smart-health-card", "--issuer-files", "\(iss)=\(spec)/issuer", "--at", "2023-07-01"])
        #expect(card.status == 0, "\(card.stderr)")
        #expect(try a.run(["samples", "add", "--type", "blood-glucose", "--value", "5.40", "--unit", "mmol/L", "--start", "2024-05-01T07:30:00Z"]).status == 0)

        let zip = dir.path("export.zip")
        let exported = try a.run(["export", "--out", zip, "--json"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try json(exported)["cards"]?.numberValue?.intValue == 1)
        #expect(try a.run(["export", "--out", zip]).status == 2, "an existing file is kept without --force")

        let b = cli("b.sqlite")
        let imported = try b.run(["import", zip, "--issuer-files", "\(iss)=\(spec)/issuer", "--at", "2023-07-01", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let report = try json(imported).arrayValue?.first
        #expect(report?["cards"]?["verified"]?.numberValue?.intValue == 1)
        #expect(report?["samples"]?["saved"]?.numberValue?.intValue == 1)
        #expect(try records("b.sqlite") == (try records("a.sqlite")))
        #expect(try records("a.sqlite").count > 50)

        // A changed export is refused, with the file named, and nothing lands.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        bytes[bytes.count / 3] ^= 0xFF
        let bad = try dir.write("bad.zip", Data(bytes))
        let c = cli("c.sqlite")
        let refused = try c.run(["import", bad])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bad.zip"))
        #expect(try records("c.sqlite").isEmpty)
        #expect(try c.run(["import", zip, FixtureFiles.url("data/fhir/r4-examples/observation-example.json").path]).status == 2)
    }

    @Test func backupAndRestoreRefuseWhatTheyShould() throws {
        let env = ["HEALTHRECORDS_STORE": dir.path("s.sqlite"), "HEALTHRECORDS_PASSPHRASE": "right passphrase"]
        let s = CommandRunner(environment: env)
        #expect(try s.run(["import", FixtureFiles.url("data/fhir/r4-examples/observation-example-f001-glucose.json").path, "--source", "lab"]).status == 0)
        let backup = dir.path("s.backup")
        let made = try s.run(["backup", "--out", backup])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try s.run(["backup", "--out", backup]).status == 2, "an existing backup is kept")

        let noForce = try s.run(["restore", backup])
        #expect(noForce.status == 1)
        #expect(noForce.stderr.contains("--force"))
        var wrong = env
        wrong["HEALTHRECORDS_PASSPHRASE"] = "wrong passphrase"
        let refused = try CommandRunner(environment: wrong).run(["restore", backup, "--force"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("wrong passphrase"))
        let restored = try s.run(["restore", backup, "--force"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.output.contains("encrypted"))
        #expect(try s.run(["records", "--json"]).status == 0)
        let pg = try s.run(["backup", "--out", dir.path("pg.backup"), "--postgres", "postgres://u@127.0.0.1/db?person=p"])
        #expect(pg.status == 2)
        #expect(pg.stderr.contains("export"))
    }
}
