import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Testing

/// The statement that checks an app's token also reads the app's grants, and the request's
/// first look at them uses those: a grant changed between two requests with the same token is
/// seen by the second, each token reads its own app's grants, and a view that outlives its
/// request (an event stream) reads the store again after its first look.
@Suite struct GrantsReadWithTokenTests {
    @Test(arguments: ServerEngine.all)
    func aChangedGrantIsSeenByTheNextRequestWithTheSameToken(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let l1 = f.servedID("clinic", .observation, "l1")
        try await f.world.test { client in
            let token = try await client.token(f.app)
            func total() async throws -> Int? { try await client.fhir("/fhir/Observation?category=laboratory", token: token).json["total"] as? Int }
            #expect(try await total() == 4)
            #expect(try await client.fhir("/fhir/Observation/\(l1)", token: token).status == .ok)

            try await f.world.consent.decide(appID: f.app.appID, AuthorizationDecision(allow: [], deny: [.clinical(.labResult)]))
            #expect(try await total() == 0)
            #expect(try await client.fhir("/fhir/Observation/\(l1)", token: token).status == .notFound)

            try await f.world.consent.decide(appID: f.app.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
            #expect(try await total() == 4)
        }
    }

    @Test(arguments: ServerEngine.all)
    func eachTokenReadsItsOwnAppsGrants(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let other = try await f.world.register([.clinical(.labResult), .clinical(.condition)], name: "Other")
        try await f.world.consent.decide(appID: other.appID, AuthorizationDecision(allow: [.clinical(.condition)], deny: [.clinical(.labResult)]))
        try await f.world.test { client in
            let mine = try await client.token(f.app)
            let theirs = try await client.token(other)
            // Alternating, so nothing read for one request carries over to the other's.
            for _ in 0..<3 {
                #expect(try await client.fhir("/fhir/Observation?category=laboratory", token: mine).json["total"] as? Int == 4)
                #expect(try await client.fhir("/fhir/Observation?category=laboratory", token: theirs).json["total"] as? Int == 0)
                #expect(try await client.fhir("/fhir/Condition", token: theirs).json["total"] as? Int == 2)
            }
        }
    }

    @Test(arguments: ServerEngine.all)
    func aViewReadsTheStoreAfterItsFirstLookAtTheGrants(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let stored = try #require(try await f.world.store.app(id: f.app.appID))
        let allowed = try await f.world.consent.view(of: stored).count(RecordQuery(type: .labResult))
        #expect(allowed > 0)
        // Grants as a token's statement read them before the lab results were allowed: none.
        let view = try await f.world.consent.view(of: stored, grants: [])
        #expect(try await view.count(RecordQuery(type: .labResult)) == 0)
        #expect(try await view.count(RecordQuery(type: .labResult)) == allowed)
        #expect(try await view.count(RecordQuery(type: .labResult)) == allowed)
    }
}
