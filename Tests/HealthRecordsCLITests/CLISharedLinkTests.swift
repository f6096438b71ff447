import FHIR
import Foundation
import LoopbackHTTP
import SmartHealthLinks
import Testing
import TestSupport

/// `healthrecords import` given SMART Health Links, against a sharing server on loopback.
@Suite struct CLISharedLinkTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }

    static func key() throws -> SHLKey {
        try SHLKey(base64url: FixtureFiles.text("vectors/shl/spec-example-key.txt").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The IG's encrypted IPS behind a `U` link, given as a viewer URL: imported as a source
    /// named after the label, the recipient sent; the same link to this machine without
    /// --allow-loopback is refused; a wrong passcode fails with the protocol's code.
    @Test func importsTheIGsSummaryFromALinkAndSaysWhyOthersFail() async throws {
        let jwe = try FixtureFiles.text("vectors/shl/IPS_IG-bundle-01-enc.txt")
        let server = try await LoopbackHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/u") where request.query("recipient") == "Dr Example": return ScriptedReply(status: 200, body: jwe)
            case ("POST", "/m"): return .json(401, #"{"remainingAttempts":2}"#, type: "application/json")
            default: return ScriptedReply(status: 404)
            }
        }
        let base = "http://127.0.0.1:\(server.port)"
        let direct = try SHLinkPayload(url: base + "/u", key: Self.key(), flags: [.directFile], label: "IPS from the clinic").link(viewer: "https://viewer.example/")

        let r = try cli.run(["import", direct, "--recipient", "Dr Example", "--allow-loopback", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let file = try #require(try JSONReader().read(r.stdout)["links"]?.arrayValue?.first?["files"]?.arrayValue?.first)
        #expect(file["status"]?.stringValue == "imported")
        #expect(file["source"]?.stringValue == "IPS from the clinic")
        #expect((file["inserted"]?.numberValue?.intValue ?? 0) > 0)
        #expect(try cli.run(["sources"]).output.contains("IPS from the clinic"))

        // A picture of the link's QR code is the link (level M, as a sharer draws it).
        let png = dir.path("link.png")
        #expect(try cli.run(["qr", "encode", "--text", direct, "--level", "M", "--png", png]).status == 0)
        let fromPicture = try cli.run(["import", png, "--recipient", "Dr Example", "--allow-loopback", "--json"])
        #expect(fromPicture.status == 0, "\(fromPicture.stderr)")
        let again = try #require(try JSONReader().read(fromPicture.stdout)["links"]?.arrayValue?.first?["files"]?.arrayValue?.first)
        #expect(again["status"]?.stringValue == "imported" && again["unchanged"]?.numberValue?.intValue == file["inserted"]?.numberValue?.intValue)

        let refused = try cli.run(["import", direct, "--recipient", "Dr Example"])
        #expect(refused.status == 1 && refused.stderr.contains("shl.fetch"), "\(refused.stderr)")

        let passcode = try dir.write("passcode.txt", "0000\n")
        let guarded = try SHLinkPayload(url: base + "/m", key: Self.key(), flags: [.passcode]).link
        let wrong = try cli.run(["import", guarded, "--passcode-file", passcode, "--allow-loopback"])
        #expect(wrong.status == 1 && wrong.stderr.contains("shl.passcode") && wrong.stderr.contains("2 attempts left"), "\(wrong.stderr)")
        #expect(try cli.run(["import", "shlink:/not-a-payload", "--allow-loopback"]).stderr.contains("shl.payload"))
    }
}
