import HealthStoreCore

extension SQLDialect {
    /// SQLite's SQL: one person per file (no person column), an anchor counter table,
    /// `added_anchor` for a resource's first anchor; `BEGIN IMMEDIATE` already holds the lock.
    static let sqlite = SQLDialect(
        placeholders: .question, person: nil, typedValues: false, greatest: "MAX", byteOrder: "", rowsPerStatement: 1, namesIndexes: true,
        anchors: .init(table: "anchor_counter", column: "value", resourceAdded: "added_anchor", rowIDIsAnchor: false, lockClause: ""))
}
