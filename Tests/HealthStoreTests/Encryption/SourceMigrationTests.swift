import ClinicalRecords
import FHIR
import Foundation
import GRDB
@testable import HealthStoreCore
@testable import HealthStoreSQLite
import Testing
import TestSupport

@Suite struct SourceMigrationTests {
    /// A store written before v4 (sources in clear, no first-added anchors) opens, finds its
    /// records by source and identity, and keeps them visible to an app granted afterwards.
    @Test func aStoreFromBeforeSealedSourcesKeepsItsRecords() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        do {
            try SQLiteSchema.migrate(path: path, upTo: "v3-verifiable-records")
            let queue = try DatabaseQueue(path: path)
            let json = Data(#"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}"#.utf8)
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO source (id, identifier, name) VALUES (1, 'clinic', 'The Clinic')")
                try db.execute(
                    sql: """
                        INSERT INTO resource (identity, source_id, resource_type, clinical_type, resource_id, display_name, fhir_version,
                        clinical_date, clinical_date_text, added_date, anchor, digest, data) VALUES (?, 1, 'Condition', 'condition', ?, ?, '4.0.1',
                        NULL, NULL, 1700000000, 1, ?, ?)
                        """,
                    arguments: [
                        PlainSealer().identityKey(["clinic", "Condition", "c1"]), Data("c1".utf8), Data("Asthma".utf8), PlainSealer().contentDigest(json), json,
                    ])
                try db.execute(sql: "UPDATE anchor_counter SET value = 1")
            }
        }
        let store = try await SQLiteHealthStore(path: path)
        #expect(try await store.sources() == [RecordSource(identifier: "clinic", name: "The Clinic")])
        #expect(try await store.records(RecordQuery(type: .condition, predicate: .source("clinic"))).map(\.displayName) == ["Asthma"])
        #expect(try await store.resource(RecordIdentity(source: "clinic", resourceType: "Condition", identifier: "c1")) != nil)
        let consent = ConsentManager(store: store)
        let app = try await consent.register(
            name: "A", purpose: "p", privacyPolicyURL: URL(string: "https://e.org")!, requestedTypes: [.clinical(.condition)])
        try await consent.decide(appID: app.appID, AuthorizationDecision(allow: [.clinical(.condition)]))
        #expect(try await consent.view(appID: app.appID).count(RecordQuery(type: .condition)) == 1)
    }
}
