import Foundation
import HealthStoreCore
import HummingbirdTesting
import LoopbackHTTP
import QRCode
import SmartHealthLinks
import Testing
import TestSupport

/// A SMART Health Link added on the upload page, pasted or photographed: the server follows it
/// (a sharing server on loopback, allowed only where the server allows loopback providers) and
/// imports its files as `import` does.
@Suite struct LinkUploadTests {
    static func sharingServer() async throws -> LoopbackHTTPServer {
        let jwe = try FixtureFiles.text("vectors/shl/IPS_IG-bundle-01-enc.txt")
        return try await LoopbackHTTPServer { request in
            request.method == "GET" && request.path == "/u" && request.query("recipient") == "HealthRecords"
                ? ScriptedReply(status: 200, body: jwe) : ScriptedReply(status: 404)
        }
    }

    static func link(port: Int) throws -> String {
        let key = try SHLKey(base64url: FixtureFiles.text("vectors/shl/spec-example-key.txt").trimmingCharacters(in: .whitespacesAndNewlines))
        return try SHLinkPayload(url: "http://127.0.0.1:\(port)/u", key: key, flags: [.directFile], label: "Clinic summary").link(viewer: "https://viewer.example/")
    }

    @Test func aLinkPastedOrPhotographedIsFollowedAndItsFilesAdded() async throws {
        let server = try await Self.sharingServer()
        let link = try Self.link(port: server.port)
        let w = try await ServerWorld(.sqlite) { $0.allowLoopbackProviders = true }
        try await w.test { client in
            let cookie = try await client.signIn()
            let pasted = try await UploadTests.upload(client, cookie: cookie, text: link).text
            #expect(pasted.contains("Clinic summary, file 1") && pasted.contains("Imported: "), "\(pasted)")
            let stored = try await w.store.count(RecordQuery(type: nil))
            #expect(stored > 0)
            // A photo of the link's QR code is the same link: everything is there already.
            let png = try QREncoder.encode(text: link, level: .M).pngData(moduleSize: 4)
            let photographed = try await UploadTests.upload(client, cookie: cookie, file: ("link.png", png)).text
            #expect(photographed.contains("Clinic summary, file 1") && photographed.contains("0 new"), "\(photographed)")
            #expect(try await w.store.count(RecordQuery(type: nil)) == stored)
        }
    }

    /// A server that does not allow loopback providers does not follow a link to this machine:
    /// the person is told why (`shl.fetch`), and nothing is asked of the sharing server.
    @Test func aLinkToThisMachineIsRefusedUnlessAllowed() async throws {
        let server = try await Self.sharingServer()
        let w = try await ServerWorld(.sqlite)
        try await w.test { client in
            let cookie = try await client.signIn()
            let page = try await UploadTests.upload(client, cookie: cookie, text: try Self.link(port: server.port)).text
            #expect(page.contains("shl.fetch") && page.contains("Not added"), "\(page)")
            let broken = try await UploadTests.upload(client, cookie: cookie, text: "shlink:/!!!").text
            #expect(broken.contains("shl.payload"), "\(broken)")
        }
        #expect(try await w.store.count(RecordQuery(type: nil)) == 0)
    }

    /// A link that grants API access: reported unless the person asks, on the upload page, for
    /// it to be kept; then it is a provider connection holding the grant's token.
    @Test func anAccessGrantIsKeptAsAProviderConnectionWhenThePersonAsks() async throws {
        let key = SHLKey.random()
        let grant = #"{"access_token":"grant-token","token_type":"Bearer","aud":"http://127.0.0.1:9/fhir","patient":"p-77"}"#
        let jwe = try SHLFileEncryption.encrypt(Data(grant.utf8), contentType: SHLContentType.smartAPIAccess, key: key)
        let server = try await LoopbackHTTPServer { request in
            request.method == "GET" && request.path == "/g" ? ScriptedReply(status: 200, body: jwe) : ScriptedReply(status: 404)
        }
        let link = try SHLinkPayload(url: "http://127.0.0.1:\(server.port)/g", key: key, flags: [.directFile], label: "Clinic records access").link
        let w = try await ServerWorld(.sqlite) { $0.allowLoopbackProviders = true }
        try await w.test { client in
            let cookie = try await client.signIn()
            let reported = try await UploadTests.upload(client, cookie: cookie, text: link).text
            #expect(reported.contains("not kept") && reported.contains("upload page"), "\(reported)")
            #expect(try await w.store.providers().isEmpty)
            let kept = try await UploadTests.upload(client, cookie: cookie, text: link, fields: [("connectAccess", "1")]).text
            #expect(kept.contains("Connected as provider"), "\(kept)")
            let provider = try #require(try await w.store.providers().first)
            #expect(provider.fhirBase == "http://127.0.0.1:9/fhir" && provider.name == "Clinic records access")
        }
    }
}
