import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct CLIVerifyTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }
    let spec = FixtureFiles.url("vectors/shc-spec").path
    let iss = "https://spec.smarthealth.cards/examples/issuer"
    var issuerFiles: [String] { ["--issuer-files", "\(iss)=\(spec)/issuer", "--offline"] }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    /// `--at` reads times by the vocabulary's rule: a date-time without a zone is that instant
    /// in UTC (as the member states' test data gives its clocks), with fractions of any length;
    /// a date is its first instant; anything else is a usage error. Example 00's `nbf` is
    /// 2023-06-22T16:19:24.656Z.
    @Test func atIsReadAsTheInstantItNames() throws {
        func codes(_ at: String) throws -> (Int32, [String]) {
            let r = try cli.run(["verify", "\(spec)/example-00-d-jws.txt", "--at", at, "--json"] + issuerFiles)
            let errors = try json(r)["cards"]?.arrayValue?.first?["errors"]?.arrayValue ?? []
            return (r.status, errors.compactMap { $0["code"]?.stringValue })
        }
        for valid in ["2023-06-22T16:19:30.123456789012345", "2023-06-22 16:19:30", "2023-06-22T16:19:30", "2023-06-22T18:19:30+02:00", "1687450770"] {
            let (status, errors) = try codes(valid)
            #expect(status == 0 && errors.isEmpty, "\(valid): \(errors)")
        }
        // Nine minutes before nbf (more than the 5-minute skew): not yet valid, not the end of that day.
        for early in ["2023-06-22T16:10:00", "2023-06-22T16:10:00.5Z", "2023-06-22"] {
            #expect(try codes(early).1 == ["time.notYetValid"], "\(early)")
        }
        for nonsense in ["2023-06-22T25:00:00", "2023-06-22junk", "22/06/2023", "2023-06-22T16:19:30.", "next tuesday"] {
            let r = try cli.run(["verify", "\(spec)/example-00-d-jws.txt", "--at", nonsense] + issuerFiles)
            #expect(r.status == 2, "\(nonsense): \(r.stderr)")
        }
    }

    @Test func verifiesEveryInputFormWithTheDocumentedJSON() throws {
        let qr = try String(contentsOfFile: "\(spec)/example-00-f-qr-code-numeric-value-0.txt", encoding: .utf8)
        let r = try cli.run(["verify", "\(spec)/example-00-d-jws.txt", "\(spec)/example-01-e-file.smart-health-card", qr,
                             "\(spec)/example-02-f-qr-code-numeric-value-1.txt", "\(spec)/example-02-f-qr-code-numeric-value-0.txt",
                             "\(spec)/example-02-f-qr-code-numeric-value-2.txt", "--at", "2023-07-01T00:00:00Z", "--json"] + issuerFiles)
        #expect(r.status == 0, "\(r.output)\(r.stderr)")
        let report = try json(r)
        #expect(report["valid"]?.boolValue == true)
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards.count == 4)
        let first = try #require(cards.first?.objectValue)
        for key in ["valid", "issuer", "trusted", "subject", "recordTypes", "itemNames", "issuedDate", "relevantDate", "expirationDate", "errors", "warnings"] {
            #expect(first[key] != nil, "missing \(key)")
        }
        #expect(first["subject"]?["fullName"]?.stringValue == "John B. Anyperson")
    }

    @Test func exitsOneForARevokedCardAndReportsItsCode() throws {
        let r = try cli.run(["verify", "\(spec)/example-03-d-jws.txt", "--at", "1688169600", "--json"] + issuerFiles)
        #expect(r.status == 1)
        let card = try #require(try json(r)["cards"]?[0])
        #expect(card["valid"]?.boolValue == false)
        #expect(card["errors"]?.arrayValue?.compactMap { $0["code"]?.stringValue } == ["revoked"])
    }

    @Test func exitsOneForAnUntrustedIssuer() throws {
        let r = try cli.run(["verify", "\(spec)/example-00-d-jws.txt", "--trust", "https://other.example", "--at", "2023-07-01", "--json"] + issuerFiles)
        #expect(r.status == 1)
        let card = try #require(try json(r)["cards"]?[0])
        #expect(card["valid"]?.boolValue == true)
        #expect(card["trusted"]?.boolValue == false)
    }

    @Test func readsStandardInputAndPrintsAReportForPeople() throws {
        let jws = try Data(contentsOf: URL(fileURLWithPath: "\(spec)/example-00-d-jws.txt"))
        let r = try cli.run(["verify", "-", "--at", "2023-07-01"] + issuerFiles, stdin: jws)
        #expect(r.status == 0)
        #expect(r.output.contains("✓ ES256 signature"))
        #expect(r.output.contains("John B. Anyperson"))
    }

    @Test func exitsTwoOnUsageAndIOErrors() throws {
        #expect(try cli.run(["verify"]).status == 2)
        #expect(try cli.run(["verify", dir.path("missing.txt")]).status == 2)
        #expect(try cli.run(["verify", "\(spec)/example-00-d-jws.txt", "--at", "yesterday"] + issuerFiles).status == 2)
        #expect(try cli.run(["verify", "\(spec)/example-00-d-jws.txt", "--issuer-files", "nonsense"]).status == 2)
    }

    @Test func importsCardsVerifiedAndQueriesThemByType() throws {
        let imported = try cli.run(["import", "\(spec)/example-00-e-file.smart-health-card", "\(spec)/example-02-f-qr-code-numeric-value-0.txt",
                                    "\(spec)/example-02-f-qr-code-numeric-value-1.txt", "\(spec)/example-02-f-qr-code-numeric-value-2.txt",
                                    "--at", "2023-07-01", "--json"] + issuerFiles)
        #expect(imported.status == 0, "\(imported.output)\(imported.stderr)")
        #expect(try json(imported)["inserted"]?.numberValue?.intValue == 2)
        let revoked = try cli.run(["import", "\(spec)/example-03-e-file.smart-health-card", "--at", "2023-07-01"] + issuerFiles)
        #expect(revoked.status == 1)
        #expect(revoked.stderr.contains("revoked"))
        let allowed = try cli.run(["import", "\(spec)/example-03-e-file.smart-health-card", "--at", "2023-07-01", "--allow-unverified"] + issuerFiles)
        #expect(allowed.status == 0)
        let all = try json(try cli.run(["cards", "--json"]))
        #expect(all.arrayValue?.count == 3)
        #expect(all.arrayValue?.first { $0["subject"]?["fullName"]?.stringValue == "Johnny Revoked" }?["status"]?.stringValue == "unverified")
        let immunization = try json(try cli.run(["cards", "--type", "https://smarthealth.cards#immunization", "--json"]))
        #expect(immunization.arrayValue?.count == 2)
        let labs = try json(try cli.run(["cards", "--type", "https://smarthealth.cards#laboratory", "--type", "https://smarthealth.cards#health-card", "--json"]))
        #expect(labs.arrayValue?.count == 1)
        let dated = try json(try cli.run(["cards", "--from", "2021-03", "--to", "2021-03", "--json"]))
        #expect(dated.arrayValue?.compactMap { $0["subject"]?["fullName"]?.stringValue } == ["Johnny Revoked"])
        let again = try cli.run(["import", "\(spec)/example-00-e-file.smart-health-card", "--at", "2023-07-01", "--json"] + issuerFiles)
        #expect(try json(again)["unchanged"]?.numberValue?.intValue == 1)
    }
}
