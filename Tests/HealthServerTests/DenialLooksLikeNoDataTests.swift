import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// An app that was denied, or never answered, gets byte for byte what an app allowed
/// everything gets from an empty store, on every read endpoint.
@Suite struct DenialLooksLikeNoDataTests {
    static let types: Set<HealthDataType> = [.clinical(.labResult), .clinical(.condition), .clinical(.immunization)]

    /// The bodies and statuses of every read, for an app in some state of a world. Anchor
    /// tokens are each app's own (sealed per store and app), so they are compared by the store
    /// anchor they stand for.
    static func answers(_ w: ServerWorld, _ creds: AppCredentials) async throws -> [String] {
        let view = try await w.consent.view(appID: creds.appID)
        return try await w.test { client in
            let token = try await client.token(creds)
            let first = try await client.call(.get, "/changes", token: token).object()["anchor"] as! String
            var out: [String] = []
            for uri in [
                "/records", "/records?type=lab-result", "/records?type=condition&limit=5&sort=-clinical", "/records?source=clinic",
                "/records?resourceType=Observation&from=2019&to=2021", "/changes", "/changes?type=lab-result", "/changes?anchor=\(first)&limit=10",
                "/changes?anchor=0", "/records/clinic/Observation/l1", "/records/clinic/Patient/p1", "/records/clinic/Condition/c1",
            ] {
                let r = try await client.call(.get, uri, token: token)
                var text = r.text
                for m in text.matches(of: #/"anchor":"([A-Za-z0-9_-]{48})"/#) {
                    text = text.replacingOccurrences(of: String(m.output.1), with: "store-anchor-\(try view.anchor(token: String(m.output.1)).rawValue)")
                }
                out.append("\(uri.replacingOccurrences(of: first, with: "FIRST")) \(r.status.code) \(text)")
            }
            let cards = try await client.call(.post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["https://smarthealth.cards#immunization"]}"#)
            out.append("cards \(cards.status.code)")
            return out
        }
    }

    @Test(arguments: ServerEngine.all)
    func deniedAndUndecidedAppsGetTheEmptyStoresAnswers(engine: ServerEngine) async throws {
        let full = try await ServerWorld(engine)
        try await full.importResources([
            Fixtures.record(.labResult, id: "l1"), Fixtures.record(.condition, id: "c1"), Fixtures.record(.immunization, id: "i1"), Fixtures.patient,
        ])
        try await full.saveCards()
        let denied = try await full.register(Self.types, name: "Denied")
        try await full.consent.decide(appID: denied.appID, AuthorizationDecision(allow: [], deny: Self.types))
        let undecided = try await full.register(Self.types, name: "Undecided")

        let empty = try await ServerWorld(engine)
        let allowed = try await empty.register(Self.types, name: "Allowed")
        try await empty.consent.decide(appID: allowed.appID, AuthorizationDecision(allow: Self.types, newData: .share))

        let baseline = try await Self.answers(empty, allowed)
        #expect(baseline.contains { $0.hasPrefix("/records 200 {\"records\":[]}") })
        #expect(baseline.contains { $0.hasPrefix("/changes 200 {\"added\":[],\"deleted\":[],\"anchor\":\"store-anchor-0\"}") })
        #expect(try await Self.answers(full, denied) == baseline)
        #expect(try await Self.answers(full, undecided) == baseline)
    }
}
