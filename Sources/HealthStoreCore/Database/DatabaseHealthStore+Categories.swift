import ClinicalRecords
import FHIR
import Foundation

extension DatabaseHealthStore {
    /// Gives rows the consent-category migration could not place (non-clinical Observations,
    /// whose category is inside sealed bytes) their category, once the store's key is at hand.
    /// Until then no grant matches them.
    func classifyPending() async throws(HealthStoreError) {
        guard !isLocked else { return }
        let sealer = self.sealer
        var find = sql("SELECT id, resource_type, resource_id, fhir_version, data FROM resource WHERE ")
        find += find.scope() + " AND category = " + find.bind(CategoryCoding.pending)
        let final = find
        do {
            let found: [(Int64, String)] = try await read { session in
                try await session.rows(final).map { row in
                    let version = (try? FHIRVersion(versionString: try row.string(3))) ?? FHIRVersion.primary(for: .r4)
                    // A row that cannot be opened is `other` rather than a store that cannot open.
                    var category = ConsentCategory.context(.other)
                    if let id = try? row.opened(2, sealer), let data = try? sealer.open(try row.data(4)) {
                        category = CategoryCoding.classify(resourceType: try row.string(1), identifier: id, fhirVersion: version, data: data)
                    }
                    return (try row.int(0), category.rawValue)
                }
            }
            guard !found.isEmpty else { return }
            try await write { w in
                for (id, category) in found {
                    var q = w.sql("UPDATE resource SET category = ")
                    q += q.bind(category) + " WHERE " + q.scope() + " AND id = " + q.bind(id) + " AND category = " + q.bind(CategoryCoding.pending)
                    try await w.session.run(q)
                }
            }
        } catch {
            throw error as? HealthStoreError ?? .database("\(error)")
        }
    }
}
