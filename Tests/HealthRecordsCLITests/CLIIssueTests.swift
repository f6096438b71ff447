import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct CLIIssueTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }
    let fixtures = FixtureFiles.url("vectors/shc-spec/fixtures").path
    let iss = "https://issuer.example.org/shc"

    func keys() throws -> (String, String) {
        let r = try cli.run(["keys", "generate", "--private", dir.path("private.jwks"), "--public", dir.path("jwks.json")])
        #expect(r.status == 0, "\(r.stderr)")
        return (dir.path("private.jwks"), dir.path("jwks.json"))
    }

    @Test func generatesKeysIssuesAndVerifiesACard() throws {
        let (privateKeys, publicKeys) = try keys()
        let published = try JSONReader().read(Data(contentsOf: URL(fileURLWithPath: publicKeys)))
        let key = try #require(published["keys"]?[0]?.objectValue)
        #expect(key["d"] == nil)
        #expect(key.string("use") == "sig" && key.string("alg") == "ES256" && key.string("crv") == "P-256")
        let secret = try dir.write("secret.json", #"{"secret":"GWdbF5850vxNt3HhHFl0dRvvN--C6rD77obJgGjK_Zg"}"#)
        let issued = try cli.run([
            "issue", "\(fixtures)/covid-vaccines-bundle.json", "--key", privateKeys, "--iss", iss, "--rid-secret", secret, "--rid-user", "userid-00",
            "--out", dir.path("card.smart-health-card"), "--jws", dir.path("card.jws"), "--qr-text", dir.path("card.qr.txt"),
        ])
        #expect(issued.status == 0, "\(issued.stderr)")
        #expect(issued.stderr.contains("rid "))
        let wellKnown = dir.url.appendingPathComponent("site/.well-known")
        try FileManager.default.createDirectory(at: wellKnown, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: publicKeys, toPath: wellKnown.appendingPathComponent("jwks.json").path)
        for input in ["card.smart-health-card", "card.jws", "card.qr.txt"] {
            let r = try cli.run(["verify", dir.path(input), "--issuer-files", "\(iss)=\(dir.path("site"))", "--offline", "--json"])
            #expect(r.status == 0, "\(input): \(r.output)")
        }
    }

    @Test func writesNothingWhenACardIsTooBigForAQRCode() throws {
        let (privateKeys, _) = try keys()
        let r = try cli.run(["issue", "\(fixtures)/dr-bundle.json", "--key", privateKeys, "--iss", iss, "--out", dir.path("big.smart-health-card"), "--qr-text", dir.path("big.txt")])
        #expect(r.status == 2)
        #expect(r.stderr.contains("holds at most 1195"))
        #expect(!FileManager.default.fileExists(atPath: dir.path("big.smart-health-card")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("big.txt")))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func refusesBadBundlesKeysAndIssuers() throws {
        let (privateKeys, publicKeys) = try keys()
        let notJSON = try dir.write("x.json", "not json")
        let notBundle = try dir.write("p.json", #"{"resourceType":"Patient","id":"p"}"#)
        #expect(try cli.run(["issue", notJSON, "--key", privateKeys, "--iss", iss]).status == 2)
        #expect(try cli.run(["issue", notBundle, "--key", privateKeys, "--iss", iss]).status == 2)
        #expect(try cli.run(["issue", "\(fixtures)/covid-vaccines-bundle.json", "--key", publicKeys, "--iss", iss]).status == 2)
        #expect(try cli.run(["issue", "\(fixtures)/covid-vaccines-bundle.json", "--key", privateKeys, "--iss", "http://x.example"]).status == 2)
        #expect(try cli.run(["issue", "\(fixtures)/covid-vaccines-bundle.json", "--key", privateKeys, "--iss", iss + "/"]).status == 2)
    }
}
