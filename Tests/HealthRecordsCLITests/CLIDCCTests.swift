import FHIR
import Foundation
import Testing
import TestSupport

/// EU DCCs on the command line: `verify` and `import` beside cards, and `dcc issue`.
@Suite struct CLIDCCTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }

    /// A member state's case: its QR text, QR image and DSC written as files.
    struct Case {
        let text: String
        let textFile: String
        let png: String
        let dsc: String
        let clock: String
    }

    func memberStateCase(_ relative: String) throws -> Case {
        let o = try #require(try JSONReader().read(FixtureFiles.data("vectors/eu-dcc/\(relative)")).objectValue)
        let name = relative.replacingOccurrences(of: "/", with: "-")
        let text = try #require(o.string("PREFIX"))
        let context = try #require(o["TESTCTX"]?.objectValue)
        return Case(
            text: text, textFile: try dir.write("\(name).txt", text + "\n"),
            png: try dir.write("\(name).png", Data(base64Encoded: try #require(o.string("2DCODE")))!),
            dsc: try dir.write("\(name).dsc", try #require(context.string("CERTIFICATE"))),
            clock: try #require(context.string("VALIDATIONCLOCK")))
    }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    @Test func verifiesMemberStateCertificatesInEveryInputForm() throws {
        let fi = try memberStateCase("FI/2DCode/raw/1.json")  // ES256
        let ch = try memberStateCase("CH/2DCode/raw/1.json")  // PS256
        for (c, algorithm) in [(fi, "ES256"), (ch, "PS256")] {
            let r = try cli.run(["verify", c.textFile, c.png, c.text, "--dsc", fi.dsc, "--dsc", ch.dsc, "--at", c.clock, "--json"])
            #expect(r.status == 0, "\(r.output)\(r.stderr)")
            let reports = try #require(try json(r)["cards"]?.arrayValue)
            #expect(reports.count == 3)
            for report in reports {
                #expect(report["format"]?.stringValue == "eu-dcc")
                #expect(report["valid"]?.boolValue == true && report["trusted"]?.boolValue == true)
                #expect(report["algorithm"]?.stringValue == algorithm)
                #expect(report["kind"]?.stringValue == "vaccination")
                #expect(report["payload"]?["ver"]?.stringValue != nil)
                #expect(report["errors"]?.arrayValue?.isEmpty == true)
            }
            let stdin = try cli.run(["verify", "-", "--dsc", c.dsc, "--at", c.clock], stdin: Data(c.text.utf8))
            #expect(stdin.status == 0 && stdin.output.contains("EU DCC — ✓ VALID"), "\(stdin.output)")
        }
    }

    @Test func failuresExitOneWithTheirCodes() throws {
        let fi = try memberStateCase("FI/2DCode/raw/1.json")
        let ch = try memberStateCase("CH/2DCode/raw/1.json")
        func codes(_ args: [String]) throws -> [String] {
            let r = try cli.run(["verify"] + args + ["--json"])
            #expect(r.status == 1, "\(r.output)")
            return try json(r)["cards"]?[0]?["errors"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        }
        #expect(try codes([fi.textFile, "--at", fi.clock]) == ["dcc.key.notFound"])
        #expect(try codes([fi.textFile, "--dsc", ch.dsc, "--at", fi.clock]) == ["dcc.key.notFound"])
        #expect(try codes([fi.textFile, "--dsc", fi.dsc, "--at", "2030-01-01"]).contains("dcc.expired"))
        #expect(try codes([fi.textFile, "--dsc", fi.dsc, "--at", "2020-01-01"]).contains("dcc.notYetValid"))
        let unprefixed = try dir.write("unprefixed.txt", String(fi.text.dropFirst(4)))
        #expect(try codes([unprefixed, "--dsc", fi.dsc]) == ["dcc.prefix"])
        // A good card beside a bad one: the run fails, each report stands.
        let both = try cli.run(["verify", fi.textFile, ch.textFile, "--dsc", fi.dsc, "--at", fi.clock, "--json"])
        #expect(both.status == 1)
        #expect(try json(both)["cards"]?.arrayValue?.map { $0["valid"]?.boolValue } == [true, false])
        #expect(try cli.run(["verify", fi.textFile, "--dsc", dir.path("missing.pem")]).status == 2)
    }

    @Test func issuesWhatItVerifiesAndImportsItAsAVerifiableRecord() throws {
        let openssl = try OpenSSLRunner()
        let key = dir.path("dsc.key")
        let cert = dir.path("dsc.pem")
        try openssl.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        try openssl.runChecked(["req", "-new", "-x509", "-key", key, "-subj", "/C=AT/O=Test/CN=DSC", "-days", "800", "-out", cert,
                                "-addext", "extendedKeyUsage=1.3.6.1.4.1.1847.2021.1.2"])
        let payload = try dir.write("payload.json", #"""
            {"ver":"1.3.0","nam":{"fn":"Musterfrau","fnt":"MUSTERFRAU","gn":"Erika","gnt":"ERIKA"},"dob":"1964-08-12",
             "v":[{"tg":"840539006","vp":"1119349007","mp":"EU/1/20/1528","ma":"ORG-100030215","dn":1,"sd":2,"dt":"2021-05-29",
                   "co":"AT","is":"BMSGPK","ci":"URN:UVCI:01:AT:10807843F94AEE0EE5093FBC254BD813#B"}]}
            """#)
        let issued = try cli.run(["dcc", "issue", payload, "--key", key, "--certificate", cert, "--out", dir.path("dcc.txt"), "--qr", dir.path("dcc.png")])
        #expect(issued.status == 0, "\(issued.stderr)")
        let text = try String(contentsOfFile: dir.path("dcc.txt"), encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(text.hasPrefix("HC1:"))
        let fromPNG = try cli.run(["verify", dir.path("dcc.png"), "--dsc", cert, "--json"])
        #expect(fromPNG.status == 0, "\(fromPNG.output)")
        #expect(try json(fromPNG)["cards"]?[0]?["issuer"]?.stringValue == "AT")

        // A payload that breaks the schema is refused unless asked for.
        let broken = try dir.write("broken.json", #"{"ver":"1.3.0","nam":{"fnt":"X"},"v":[]}"#)
        #expect(try cli.run(["dcc", "issue", broken, "--key", key, "--certificate", cert]).status == 2)

        // Import: refused without its DSC, stored with it, listed by kind, not stored twice.
        #expect(try cli.run(["import", dir.path("dcc.txt")]).status == 1)
        let imported = try cli.run(["import", dir.path("dcc.txt"), dir.path("dcc.png"), "--dsc", cert, "--json"])
        #expect(imported.status == 0, "\(imported.output)\(imported.stderr)")
        #expect(try json(imported)["inserted"]?.numberValue?.intValue == 1)
        let cards = try json(try cli.run(["cards", "--source-type", "EUDigitalCOVIDCertificate", "--json"]))
        let card = try #require(cards.arrayValue?.first)
        #expect(cards.arrayValue?.count == 1)
        #expect(card["sourceType"]?.stringValue == "EUDigitalCOVIDCertificate")
        #expect(card["dataRepresentation"]?.stringValue == text)
        #expect(card["itemNames"]?[0]?.stringValue == "COVID-19 vaccination: Comirnaty, dose 1 of 2")
        #expect(card["payload"]?["v"]?[0]?["ci"]?.stringValue == "URN:UVCI:01:AT:10807843F94AEE0EE5093FBC254BD813#B")
        #expect(card["status"]?.stringValue == "verified")
        #expect(try json(try cli.run(["cards", "--source-type", "SMARTHealthCard", "--json"])).arrayValue?.isEmpty == true)
        #expect(try cli.run(["cards", "--source-type", "Passport"]).status == 2)
    }
}
