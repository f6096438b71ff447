import Foundation
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The access review on the person's pages: the banner when a review is due, Keep, Narrow,
/// Revoke and the settings, each a form with the session's anti-forgery token.
@Suite struct AccessReviewPageTests {
    @Test(arguments: ServerEngine.plain)
    func thePersonKeepsNarrowsAndRevokesFromTheReview(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "lab")])
        let kept = try await w.allowedApp([.clinical(.labResult)])
        let narrowed = try await w.allowedApp([.clinical(.labResult)])
        let revoked = try await w.allowedApp([.clinical(.labResult)])
        try await w.test { client in
            #expect(!(try await client.page("/", cookie: try await client.signIn()).html.contains("review-due")))
            w.advance(91 * 86_400)
            // (The first session ended long ago.)
            let cookie = try await client.signIn()
            #expect(try await client.page("/", cookie: cookie).html.contains(#"id="review-due""#))
            #expect(try await client.page("/apps", cookie: cookie).html.contains(#"id="review-due""#))
            let (html, csrf) = try await client.page("/apps/review", cookie: cookie)
            for app in [kept, narrowed, revoked] { #expect(html.contains(#"id="review-\#(app.appID)""#)) }
            #expect(html.contains("review due") && html.contains("Lab Results (all recorded data)"))

            let token = "csrf=\(formEncoded(csrf))"
            // Without the form's token nothing happens.
            #expect(try await client.call(.post, "/apps/review/\(revoked.appID)", form: "action=revoke", cookie: cookie).status == .forbidden)
            #expect(try await client.call(.post, "/apps/review/\(kept.appID)", form: token + "&action=keep", cookie: cookie).status == .seeOther)
            #expect(try await client.call(.post, "/apps/review/\(narrowed.appID)", form: token + "&action=narrow&history=all", cookie: cookie).status == .badRequest)
            #expect(try await client.call(.post, "/apps/review/\(narrowed.appID)", form: token + "&action=narrow&history=90d", cookie: cookie).status == .seeOther)
            #expect(try await client.call(.post, "/apps/review/\(revoked.appID)", form: token + "&action=revoke", cookie: cookie).status == .seeOther)
            #expect(try await client.call(.post, "/apps/review/nope", form: token + "&action=keep", cookie: cookie).status == .notFound)
            #expect(try await w.consent.grants(appID: narrowed.appID).map(\.history) == [.days(90)!])
            #expect(try await w.consent.grants(appID: revoked.appID).isEmpty)
            #expect(!(try await client.page("/", cookie: cookie).html.contains("review-due")), "all reviewed")
            // The revoked app's token ends; the narrowed one reads nothing older than 90 days.
            let narrowedToken = try await client.token(narrowed)
            #expect((try await client.call(.get, "/records", token: narrowedToken).object()["records"] as? [Any])?.isEmpty == true)
            let keptToken = try await client.token(kept)
            #expect((try await client.call(.get, "/records", token: keptToken).object()["records"] as? [Any])?.count == 1)

            #expect(try await client.call(.post, "/apps/review-settings", form: token + "&interval=3", cookie: cookie).status == .badRequest)
            #expect(try await client.call(.post, "/apps/review-settings", form: token + "&interval=30&expire=on", cookie: cookie).status == .seeOther)
            #expect(try await w.consent.reviewSettings() == AccessReviewSettings(intervalDays: 30, expireUnconfirmed: true))
            let settings = try await client.page("/apps/review", cookie: cookie).html
            #expect(settings.contains(#"value="30""#) && settings.contains("checked") && settings.contains("unless you keep it"))
        }
    }
}
