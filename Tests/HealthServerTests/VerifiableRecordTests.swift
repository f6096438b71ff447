import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Verifiable records, one time only: the person picks cards on the share page, the app
/// collects exactly those once, and the next request asks again.
@Suite struct VerifiableRecordTests {
    @Test(arguments: ServerEngine.all)
    func thePersonSharesOneOfTwoCardsAndTheAppCollectsItOnce(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.saveCards()
        let creds = try await w.register([.clinical(.immunization)], name: "Venue")
        try await w.test { client in
            let token = try await client.token(creds)
            let created = try await client.call(
                .post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"]}"#)
            #expect(created.status == .created)
            let request = try created.object()
            let id = request["id"] as! String
            let path = "/share/\(id)"
            #expect(request["url"] as? String == "http://127.0.0.1:0\(path)")
            let early = try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: token)
            #expect(early.status == .conflict)

            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page(path, cookie: cookie)
            #expect(html.contains("Vaccine 1") && html.contains("Vaccine 2") && !html.contains("Vaccine 3"))
            let ids = html.ranges(of: #/name="card" value="([^"]+)"/#).map { String(html[$0].split(separator: "\"")[3]) }
            #expect(ids.count == 2)
            let shared = try await client.call(.post, path, form: "csrf=\(formEncoded(csrf))&card=\(ids[1])&action=share", cookie: cookie)
            #expect(shared.status == .ok)
            #expect(try await client.call(.get, "/verifiable-record-requests/\(id)", token: token).object()["status"] as? String == "completed")

            let collected = try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: token)
            #expect(collected.status == .ok)
            let records = try collected.object()["records"] as! [[String: Any]]
            #expect(records.map { $0["dataRepresentation"] as! String } == ["header.payload2.signature"])
            #expect(records[0]["recordTypes"] as? [String] == [Fixtures.immunizationCard])
            #expect((records[0]["subject"] as? [String: Any])?["fullName"] as? String == "Pat 2")
            let again = try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: token)
            #expect(again.status == .conflict)

            // The next request asks again: a new page, nothing shared until the person picks.
            let next = try await client.call(.post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"]}"#).object()
            #expect(next["status"] as? String == "pending")
            let nextID = next["id"] as! String
            let (_, csrf2) = try await client.page("/share/\(nextID)", cookie: cookie)
            _ = try await client.call(.post, "/share/\(nextID)", form: "csrf=\(formEncoded(csrf2))&action=none", cookie: cookie)
            let none = try await client.call(.post, "/verifiable-record-requests/\(nextID)/records", token: token)
            #expect(none.text == #"{"records":[]}"#)
        }
        #expect(try await w.consent.auditLog(appID: creds.appID).map(\.operation) == ["cards", "cards"])
    }

    @Test(arguments: ServerEngine.all)
    func onlyCardsWithEveryTypeInTheIntervalAreOffered(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.saveCards()
        let creds = try await w.register([.clinical(.immunization)], name: "Venue")
        try await w.test { client in
            let token = try await client.token(creds)
            let request = try await client.call(
                .post, "/verifiable-record-requests", token: token,
                json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"],"relevantDateFrom":"2020-09-01","relevantDateTo":"2020-09-30"}"#
            ).object()
            let cookie = try await client.signIn()
            let (html, _) = try await client.page("/share/\(request["id"] as! String)", cookie: cookie)
            #expect(html.contains("Vaccine 1") && !html.contains("Vaccine 2"))
            for bad in [#"{"recordTypes":[]}"#, #"{"recordTypes":["x"],"relevantDateFrom":"soon"}"#, #"{"recordTypes":["x"],"redirectUri":"ftp://x"}"#] {
                #expect(try await client.call(.post, "/verifiable-record-requests", token: token, json: bad).status == .badRequest)
            }
        }
    }

    @Test(arguments: ServerEngine.all)
    func anotherAppCannotSeeOrCollectARequest(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.saveCards()
        let venue = try await w.register([.clinical(.immunization)], name: "Venue")
        let other = try await w.register([.clinical(.immunization)], name: "Other")
        try await w.test { client in
            let token = try await client.token(venue)
            let id = try await client.call(.post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"]}"#).object()["id"] as! String
            let otherToken = try await client.token(other)
            #expect(try await client.call(.get, "/verifiable-record-requests/\(id)", token: otherToken).status == .notFound)
            #expect(try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: otherToken).status == .notFound)
        }
    }
}
