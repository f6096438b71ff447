import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Finding 8 from the command line: under umask 022, keys, cards, QR text and the store the CLI
/// writes are readable by their owner only.
@Suite struct CLIFileModeTests {
    @Test func everyFileTheCLIWritesIsOwnerOnly() throws {
        let old = umask(0o022)
        defer { umask(old) }
        let dir = TemporaryDirectory()
        let cli = CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("data/store.sqlite")])
        #expect(try cli.run(["keys", "generate", "--private", dir.path("private.jwks"), "--public", dir.path("jwks.json")]).status == 0)
        let bundle = FixtureFiles.url("vectors/shc-spec/fixtures/covid-vaccines-bundle.json").path
        let issued = try cli.run([
            "issue", bundle, "--key", dir.path("private.jwks"), "--iss", "https://issuer.example.org", "--out", dir.path("card.smart-health-card"),
            "--jws", dir.path("card.jws"), "--qr-text", dir.path("card.qr.txt"),
        ])
        #expect(issued.status == 0, "\(issued.stderr)")
        let record = try dir.write("in/r.json", #"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}"#)
        #expect(try cli.run(["import", record]).status == 0)
        for name in ["private.jwks", "jwks.json", "card.smart-health-card", "card.jws", "card.qr.txt", "data/store.sqlite"] {
            var st = stat()
            #expect(stat(dir.path(name), &st) == 0, "\(name) missing")
            #expect(st.st_mode & 0o777 == 0o600, "\(name) is \(String(st.st_mode & 0o777, radix: 8))")
        }
    }
}
