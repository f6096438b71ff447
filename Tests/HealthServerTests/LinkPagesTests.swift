import Foundation
import HealthSharing
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import SmartHealthLinks
import Testing
import TestSupport

/// The person's sharing pages: make a link (with the summary's sections previewed), see its QR
/// code once, follow who opened it, revoke it; and the viewer, the one page allowed scripts.
@Suite struct LinkPagesTests {
    static func form(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
    }

    @Test func aLinkIsMadeOnThePagesFollowedInItsLogAndRevoked() async throws {
        let w = try await ServerWorld(.sqlite) { $0.linkPasscodeCost = .testing }
        try await w.importResources(HostedLinkServerTests.records)
        try await w.test { client in
            let cookie = try await client.signIn()
            let (newPage, csrf) = try await client.page("/links/new", cookie: cookie)
            #expect(newPage.contains("Active Problems") && newPage.contains("1 entry") && newPage.contains("in a check-in"), "\(newPage)")
            // A form without the session's token changes nothing.
            let forged = try await client.call(.post, "/links", form: Self.form([("what", "summary"), ("lifetime", "900")]), cookie: cookie)
            #expect(forged.status == .forbidden)
            #expect(try await w.store.hostedLinks(includeEnded: true).isEmpty)
            let bad = try await client.call(.post, "/links", form: Self.form([("csrf", csrf), ("what", "summary"), ("lifetime", "5")]), cookie: cookie)
            #expect(bad.status == .badRequest && bad.text.contains("Choose how long"))

            let made = try await client.call(
                .post, "/links",
                form: Self.form([("csrf", csrf), ("what", "summary"), ("lifetime", "3600"), ("passcode", "pass word"), ("attempts", "3"), ("label", "For Dr Lee")]),
                cookie: cookie)
            #expect(made.status == .ok)
            let html = made.text
            #expect(html.contains("<svg") && html.contains("id=\"shown-once\""))
            let viewerLink = try #require(html.range(of: #"id="viewer-link" value="([^"]+)""#, options: .regularExpression).map { String(html[$0]).split(separator: "\"")[3] })
            #expect(viewerLink.hasPrefix(w.server.baseURL + "/view#shlink:/"))
            let payload = try SHLinkPayload(link: String(viewerLink))
            #expect(payload.flags == [.passcode] && payload.label == "For Dr Lee")
            let link = try #require(try await w.store.hostedLinks(includeEnded: false).first)
            #expect(link.passcodeLimit == 3)

            // A clinician opens it; the person sees who, and revokes it.
            let path = String(payload.url.dropFirst(w.server.baseURL.count))
            #expect(try await client.call(.post, path, json: #"{"recipient":"Dr Lee's clinic","passcode":"pass word"}"#).status == .ok)
            let (linkPage, _) = try await client.page("/links/\(link.handle)", cookie: cookie)
            #expect(linkPage.contains("Dr Lee&#39;s clinic") || linkPage.contains("Dr Lee&#x27;s clinic") || linkPage.contains("Dr Lee's clinic"))
            #expect(linkPage.contains("Opened (list of files sent)") && linkPage.contains("3 of 3") && linkPage.contains("id=\"revoke\""))
            // A link without L is never shown again: its key is not kept.
            #expect(!linkPage.contains("<svg") && !linkPage.contains("shlink:/"))
            let list = try await client.page("/links", cookie: cookie).html
            #expect(list.contains("For Dr Lee") && list.contains("opened 1 times"))
            let revoked = try await client.call(.post, "/links/\(link.handle)/revoke", form: Self.form([("csrf", csrf)]), cookie: cookie)
            #expect(revoked.status == .seeOther && revoked.headers[.location] == "/links/\(link.handle)")
            #expect(try await client.call(.post, path, json: #"{"recipient":"x","passcode":"pass word"}"#).status == .notFound)
            let after = try await client.page("/links/\(link.handle)", cookie: cookie).html
            #expect(after.contains("Revoked") && !after.contains("id=\"revoke\""))
            #expect(try await client.call(.get, "/links/0000000000000000", cookie: cookie).status == .notFound)
            // Signed out, none of it is there.
            #expect(try await client.call(.get, "/links").status != .ok)
        }
    }

    @Test func aLongTermLinkCanBeShownAgain() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources(HostedLinkServerTests.records)
        try await w.test { client in
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page("/links/new", cookie: cookie)
            let made = try await client.call(.post, "/links", form: Self.form([("csrf", csrf), ("what", "summary"), ("lifetime", "86400"), ("longTerm", "1")]), cookie: cookie)
            #expect(made.status == .ok && !made.text.contains("id=\"shown-once\""))
            let handle = try #require(try await w.store.hostedLinks(includeEnded: false).first?.handle)
            let again = try await client.page("/links/\(handle)", cookie: cookie).html
            #expect(again.contains("<svg") && again.contains("/view#shlink:/"))
        }
    }

    @Test func theViewerIsTheOnlyPageWithScriptsAndRunsNoneInline() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.test { client in
            let view = try await client.call(.get, "/view")
            #expect(view.status == .ok)
            let csp = try #require(view.headers[.contentSecurityPolicy])
            #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval") && csp.contains("connect-src *"))
            #expect(view.text.contains(#"<script src="/static/viewer.js" defer></script>"#))
            #expect(view.text.components(separatedBy: "<script").count == 2)
            let script = try await client.call(.get, "/static/viewer.js")
            #expect(script.status == .ok && script.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(!script.text.contains("innerHTML") && !script.text.contains("eval("))
            let cookie = try await client.signIn()
            let page = try await client.call(.get, "/links/new", cookie: cookie)
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src") == false)
        }
    }
}
