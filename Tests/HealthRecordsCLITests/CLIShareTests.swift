import FHIR
import Foundation
import Testing
import TestSupport

/// `healthrecords share` as a person uses it with `serve`: a link made, its QR code drawn, fetched
/// by another machine's `import`, listed, logged and revoked; and every usage error exits 2.
@Suite struct CLIShareTests {
    let dir = TemporaryDirectory()
    var sender: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("sender.sqlite"), "HEALTHRECORDS_TEST_KDF": "cheap"]) }
    var receiver: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("receiver.sqlite")]) }

    func filled() throws {
        let bundle = Make.bundle([
            #"{"resourceType":"Patient","id":"p1","name":[{"text":"Robin Example"}],"birthDate":"1980-05-06"}"#,
            #"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"onsetDateTime":"2020-02-01"}"#, Make.immunization("i1"), Make.observation("o1"),
        ])
        #expect(try sender.run(["import", try dir.write("in.json", bundle)]).status == 0)
    }

    @Test func aLinkIsMadeFetchedLoggedAndRevoked() throws {
        try filled()
        let server = try ServeProcess(["--store", dir.path("sender.sqlite"), "--log-level", "error"], environment: [:])
        let created = try sender.run([
            "share", "create", "--check-in", "--expires", "15m", "--label", "Check-in", "--public-url", server.base, "--qr-png", dir.path("qr.png"), "--json",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let made = try JSONReader().read(created.stdout)
        let link = try #require(made["link"]?.stringValue)
        let handle = try #require(made["handle"]?.stringValue)
        #expect(made["flags"]?.stringValue == "U" && link.hasPrefix("shlink:/") && made["url"]?.stringValue?.hasPrefix(server.base + "/shl/") == true)
        #expect(made["files"]?.arrayValue?.first?["contentType"]?.stringValue == "application/fhir+json")
        // The QR code (level M) holds the link.
        let decoded = try sender.run(["qr", "decode", dir.path("qr.png"), "--json"])
        #expect(decoded.output.contains(link) && decoded.output.contains("\"M\""), "\(decoded.output)")

        let fetched = try receiver.run(["import", link, "--allow-loopback", "--recipient", "Front desk", "--json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try receiver.run(["records", "--type", "condition"]).output.contains("Asthma"))

        // The server writes its access log in batches, a moment after each access.
        var list = try JSONReader().read(try sender.run(["share", "list", "--json"]).stdout)
        for _ in 0..<100 where list.arrayValue?.first?["accesses"]?.numberValue?.intValue != 1 {
            Thread.sleep(forTimeInterval: 0.05)
            list = try JSONReader().read(try sender.run(["share", "list", "--json"]).stdout)
        }
        let row = try #require(list.arrayValue?.first)
        #expect(row["handle"]?.stringValue == handle && row["state"]?.stringValue == "active" && row["accesses"]?.numberValue?.intValue == 1)
        #expect(!String(describing: list).contains(link))
        let log = try JSONReader().read(try sender.run(["share", "log", handle, "--json"]).stdout)
        #expect(log.arrayValue?.first?["recipient"]?.stringValue == "Front desk" && log.arrayValue?.first?["event"]?.stringValue == "direct")

        let revoked = try sender.run(["share", "revoke", link])
        #expect(revoked.status == 0 && revoked.output.contains("revoked \(handle)"), "\(revoked.output)")
        let again = try receiver.run(["import", link, "--allow-loopback", "--recipient", "Front desk"])
        #expect(again.status == 1 && again.stderr.contains("shl.notFound"), "\(again.stderr)")
        #expect(try sender.run(["share", "revoke", handle]).output.contains("had ended already"))
        #expect(try sender.run(["share", "list"]).output.contains("0 links"))
        #expect(try sender.run(["share", "list", "--all"]).output.contains("revoked"))
        var afterLog = try JSONReader().read(try sender.run(["share", "log", handle, "--json"]).stdout)
        for _ in 0..<100 where afterLog.arrayValue?.first?["event"]?.stringValue != "revoked" {
            Thread.sleep(forTimeInterval: 0.05)
            afterLog = try JSONReader().read(try sender.run(["share", "log", handle, "--json"]).stdout)
        }
        #expect(afterLog.arrayValue?.first?["event"]?.stringValue == "revoked")
    }

    @Test func usageErrorsExit2AndFailuresExit1() throws {
        try filled()
        let url = ["--public-url", "https://records.example"]
        let passcode = try dir.write("passcode.txt", "long enough\n")
        for args in [
            ["share", "create", "--summary"] + url,
            ["share", "create", "--expires", "1h"] + url,
            ["share", "create", "--summary", "--expires", "1h"],
            ["share", "create", "--summary", "--expires", "soon"] + url,
            ["share", "create", "--summary", "--expires", "400d"] + url,
            ["share", "create", "--summary", "--expires", "1h", "--public-url", "http://records.example"],
            ["share", "create", "--summary", "--expires", "1h", "--public-url", "https://records.example/" + String(repeating: "p", count: 80)],
            ["share", "create", "--summary", "--expires", "1h", "--attempts", "3"] + url,
            ["share", "create", "--summary", "--expires", "1h", "--passcode-file", passcode, "--attempts", "11"] + url,
            ["share", "create", "--summary", "--check-in", "--expires", "1h"] + url,
            ["share", "create", "--types", "coverage", "--expires", "1h"] + url,
            ["share", "create", "--summary", "--expires", "1h", "--label", String(repeating: "l", count: 81)] + url,
            ["share", "create", "--summary", "--expires", "1h", "--passcode-file", try dir.write("short.txt", "abc")] + url,
        ] {
            let r = try sender.run(args)
            #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
        }
        for args in [["share", "create", "--cards", "0123456789abcdef", "--expires", "1h"] + url, ["share", "revoke", "nope"], ["share", "log", "nope"]] {
            let r = try sender.run(args)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
        }
        let text = try sender.run(["share", "create", "--summary", "--types", "immunization", "--expires", "2d", "--passcode-file", passcode, "--attempts", "3"] + url)
        #expect(text.status == 0 && text.output.contains("flags: P (3 attempts)") && text.output.contains("Shown once"), "\(text.stderr)")
        #expect(text.output.components(separatedBy: "\nfile: ").count == 3)
        // A long-term link keeps its key; on a store that is not encrypted, in the clear: said so.
        let longTerm = try sender.run(["share", "create", "--summary", "--expires", "1d", "--long-term"] + url)
        #expect(longTerm.status == 0 && longTerm.stderr.contains("not encrypted"), "\(longTerm.stderr)")
    }
}
