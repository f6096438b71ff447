import Foundation
@testable import HealthStorePostgres
import PostgresNIO
import Testing

/// `Scripts/citus-distribute.sql` names every person table of the PostgreSQL schema, parents
/// before children, and nothing else: a migration that adds a table with a `person_id` column
/// fails here until the file distributes it (docs/scaling.md).
@Suite struct CitusDistributionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The tables the file distributes, in its order.
    static func distributed() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("Scripts/citus-distribute.sql"), encoding: .utf8)
        guard let begin = text.range(of: "-- distribution: begin"), let end = text.range(of: "-- distribution: end"), begin.upperBound < end.lowerBound
        else { throw CocoaError(.fileReadCorruptFile) }
        return text[begin.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("('"), let close = t.range(of: "')") else { return nil }
            return String(t[t.index(t.startIndex, offsetBy: 2)..<close.lowerBound])
        }
    }

    /// The server-wide tables the file makes reference tables.
    static func referenceTables() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("Scripts/citus-distribute.sql"), encoding: .utf8)
        guard let begin = text.range(of: "-- reference: begin"), let end = text.range(of: "-- reference: end"), begin.upperBound < end.lowerBound
        else { throw CocoaError(.fileReadCorruptFile) }
        return text[begin.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            guard let open = line.range(of: "create_reference_table('"), let close = line.range(of: "')") else { return nil }
            return String(line[open.upperBound..<close.lowerBound])
        }
    }

    /// Each `CREATE TABLE` of every migration: its name, whether it has a `person_id` column, and
    /// the tables its foreign keys reference.
    static func createdTables() -> [(name: String, personID: Bool, references: Set<String>)] {
        PostgresSchema.migrations.flatMap(\.statements).compactMap { statement in
            let words = statement.split(whereSeparator: { $0.isWhitespace || $0 == "(" })
            guard words.count > 2, words[0].uppercased() == "CREATE", words[1].uppercased() == "TABLE" else { return nil }
            let name = words[2] == "IF" ? String(words[5]) : String(words[2])
            var references: Set<String> = []
            for (i, w) in words.enumerated() where w.uppercased() == "REFERENCES" && i + 1 < words.count { references.insert(String(words[i + 1])) }
            return (name, words.contains { $0 == "person_id" }, references)
        }
    }

    @Test func theFileDistributesEveryPersonTableOfTheSchemaAndNoOther() throws {
        let listed = try Self.distributed()
        let created = Self.createdTables()
        #expect(listed.count == Set(listed).count, "a table is listed twice: \(listed)")
        #expect(listed.first == "person", "person must be distributed first: the others co-locate with it")
        let withPerson = Set(created.filter(\.personID).map(\.name))
        #expect(Set(listed) == withPerson, "not distributed: \(withPerson.subtracting(listed).sorted()); not in the schema: \(Set(listed).subtracting(withPerson).sorted())")
        // Every table the migrations create holds a person's data or is a server-wide reference
        // table that names no person and references no person table (`schema_migrations`, the
        // migrator's own log, is made before them and stays local).
        let reference = try Self.referenceTables()
        #expect(reference.contains("server_setting"))
        #expect(Set(created.map(\.name)) == withPerson.union(reference))
        for table in created where reference.contains(table.name) {
            #expect(!table.personID && table.references.isDisjoint(with: withPerson), "\(table.name) must not name or reference a person")
        }
        // The engine removes a person through the same tables.
        #expect(Set(PostgresSchema.personTables + ["person"]) == Set(listed))
        #expect(withPerson.count >= 23)
    }

    @Test func referencedTablesAreDistributedBeforeTheTablesThatReferenceThem() throws {
        let listed = try Self.distributed()
        let position = Dictionary(uniqueKeysWithValues: listed.enumerated().map { ($0.element, $0.offset) })
        var checked = 0
        for table in Self.createdTables() where table.personID {
            for parent in table.references {
                checked += 1
                let (p, c) = (position[parent], position[table.name])
                #expect(p != nil && c != nil && p! < c!, "\(parent) must come before \(table.name)")
            }
        }
        #expect(checked >= 20)
    }

    /// On a live database the migrated schema has the same person tables (reads the catalog,
    /// not the migrations' text).
    @Test(.enabled(if: PostgresTestDatabase.isConfigured, "HEALTHRECORDS_POSTGRES_URL is not set"))
    func theMigratedDatabaseHasExactlyTheListedPersonTables() async throws {
        try await PostgresTestDatabase.shared().migrate()
        let rows = try await PostgresTestDatabase.admin { connection in
            try await connection.query(
                "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'person_id'",
                logger: PostgresTestDatabase.logger
            ).collect()
        }
        let live = Set(try rows.map { try $0.decode(String.self) })
        #expect(live == Set(try Self.distributed()))
    }
}
