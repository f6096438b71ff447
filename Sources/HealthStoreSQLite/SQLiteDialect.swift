import HealthStoreCore

/// SQLite's SQL: `?NNN` placeholders, one person per file (no person column), an anchor
/// counter table, `added_anchor` for a resource's first anchor.
struct SQLiteDialect: SQLDialect {
    var person: String? { nil }
    func placeholder(_ index: Int) -> String { "?\(index)" }
    func cast(_ placeholder: String, _ value: SQLValue) -> String { placeholder }
    var resourceAddedColumn: String { "added_anchor" }
    var rowIDIsAnchor: Bool { false }
    var anchorCounter: (table: String, column: String) { ("anchor_counter", "value") }
    // BEGIN IMMEDIATE already holds the file's write lock.
    var lockClause: String { "" }
    var greatest: String { "MAX" }
    var byteOrder: String { "" }
}
