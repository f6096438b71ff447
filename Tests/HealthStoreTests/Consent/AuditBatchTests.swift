import ClinicalRecords
import Foundation
@testable import HealthStoreCore
import Testing

/// An audit batch is written as multi-row INSERTs of a few fixed sizes: every entry arrives
/// once, in order, with its own fields, whatever the batch's size, on every engine.
@Suite struct AuditBatchTests {
    @Test func chunksCoverEveryRowOnceInFixedSizesLargestFirst() {
        for largest in [1, 1000] {
            for count in 0...700 {
                let chunks = LogInsert.chunks(count, largest: largest)
                #expect(chunks.map(\.count).reduce(0, +) == count, "\(count)")
                #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(count): \(chunks)")
                #expect(chunks.first?.lowerBound ?? 0 == 0)
                #expect(chunks.allSatisfy { $0.count <= largest && [256, 64, 16, 4, 1].contains($0.count) }, "\(count): \(chunks)")
                #expect(chunks.map(\.count) == chunks.map(\.count).sorted(by: >), "\(count): \(chunks)")
            }
        }
        // 300 = 256 + 2 × 16 + 3 × 4: six statements, not 300.
        #expect(LogInsert.chunks(300, largest: 1000).map(\.count) == [256, 16, 16, 4, 4, 4])
    }

    /// Each row carries its own store's person; merging keeps every row and its person.
    @Test func mergedRowsKeepTheirPeople() {
        let anchors = SQLDialect.Anchors(table: "anchor", column: "value", resourceAdded: "added", rowIDIsAnchor: false, lockClause: "")
        func dialect(_ person: String) -> SQLDialect {
            SQLDialect(placeholders: .dollar, person: person, typedValues: true, greatest: "GREATEST", byteOrder: "", rowsPerStatement: 1000, anchors: anchors)
        }
        var a = LogInsert(dialect("a"), table: "audit_entry", columns: ["app_id", "record_count"])
        var b = LogInsert(dialect("b"), table: "audit_entry", columns: ["app_id", "record_count"])
        for n in 0..<3 { a.append([.text("app-a"), .int(Int64(n))]) }
        for n in 0..<2 { b.append([.text("app-b"), .int(Int64(n))]) }
        let merged = LogInsert.merged([a, b])
        #expect(merged.count == 1)
        #expect(merged[0].rows.map { $0[0] } == [.text("a"), .text("a"), .text("a"), .text("b"), .text("b")])
        let statements = merged[0].statements()
        #expect(statements.map { $0.values.count } == [12, 3])
        #expect(statements[0].text.hasPrefix("INSERT INTO audit_entry (person_id, app_id, record_count) VALUES ($1::text, $2::text, $3::bigint), ($4::text"))
        #expect(statements.flatMap(\.values) == merged[0].rows.flatMap { $0 })
    }

    @Test(arguments: StoreEngine.all)
    func aLargeBatchIsWrittenWholeAndInOrder(engine: StoreEngine) async throws {
        let world = try await ConsentWorld(engine)
        let types: [[HealthDataType]] = [[.clinical(.labResult)], [.clinical(.condition), .clinical(.vitalSign)], []]
        let entries = (0..<301).map { n in
            AuditEntry(
                appID: "app-\(n % 7)", date: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), operation: n % 2 == 0 ? "read" : "search",
                types: types[n % types.count], count: n)
        }
        for entry in entries { try await world.store.appendAudit(entry) }
        let log = try await world.store.auditEntries(appID: nil)
        #expect(log == entries)
        #expect(try await world.store.auditEntries(appID: "app-3") == entries.filter { $0.appID == "app-3" })
    }
}
