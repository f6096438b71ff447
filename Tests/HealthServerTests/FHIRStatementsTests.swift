import Foundation
import HealthStoreCore
import HummingbirdTesting
import Testing

@testable import HealthServer

/// A FHIR search reads the store in a small, fixed number of statements: the bearer check and
/// the search together, counted for a first search, the same search again (answered from the
/// caches once the store's anchor is read) and a search with a new date each time.
@Suite struct FHIRStatementsTests {
    @Test(arguments: ServerEngine.plain)
    func aSearchReadsInAFixedNumberOfStatements(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let store = try #require(f.world.store as? DatabaseHealthStore)
        let counts = try await f.world.test { client in
            let token = try await client.token(f.app)
            var counts: [String: Int] = [:]
            for (name, uri) in [
                ("first", "/fhir/Observation?category=laboratory&date=ge2001-01-01"),
                ("again", "/fhir/Observation?category=laboratory&date=ge2001-01-01"),
                ("third", "/fhir/Observation?category=laboratory&date=ge2001-01-01"),
                ("new date", "/fhir/Observation?category=laboratory&date=ge2002-02-02"),
            ] {
                store.statements.start()
                let r = try await client.fhir(uri, token: token)
                counts[name] = store.statements.stop()
                #expect(r.status == .ok && (r.json["total"] as? Int ?? 0) > 0, "\(uri): \(r.status) \(r.text.prefix(200))")
            }
            return counts
        }
        print("statements per FHIR search (\(engine)):", counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        // The token with its app's row and grants (one statement); then the store's anchor
        // when a page is kept for the search (from its third time: a page is kept when asked
        // for again); else the snapshot's anchor, the count and the page (one statement on
        // PostgreSQL). The first search also reads what is kept after it (the person's Patient
        // ids, the page-token secret).
        let oneStatement = engine.name.hasPrefix("postgres")
        #expect(try #require(counts["third"]) <= 2)
        #expect(try #require(counts["again"]) <= (oneStatement ? 2 : 4))
        #expect(try #require(counts["new date"]) <= (oneStatement ? 2 : 4))
        #expect(try #require(counts["first"]) <= (oneStatement ? 4 : 6))
    }
}
