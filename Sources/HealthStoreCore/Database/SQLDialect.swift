import Foundation

/// What differs between the SQL the engines speak, and nothing else: the store's statements
/// are written once (``DatabaseHealthStore``) over this. Each engine makes one.
package struct SQLDialect: Sendable {
    /// How a bound value is referred to.
    package enum Placeholders: Sendable {
        /// `$1`, `$2`, … (PostgreSQL).
        case dollar
        /// `?1`, `?2`, … (SQLite).
        case question
    }

    /// Where the store's anchors live, and how a write locks them.
    package struct Anchors: Sendable {
        /// The table and column of the anchor counter (one row per store).
        let table: String, column: String
        /// The column that holds the anchor at which a resource was first added.
        let resourceAdded: String
        /// Whether rows of samples and cards take their first anchor as their id (else the
        /// database numbers them).
        let rowIDIsAnchor: Bool
        /// Appended to the read of the anchor counter at the start of a write, to lock it.
        let lockClause: String

        package init(table: String, column: String, resourceAdded: String, rowIDIsAnchor: Bool, lockClause: String) {
            (self.table, self.column, self.resourceAdded, self.rowIDIsAnchor, self.lockClause) = (table, column, resourceAdded, rowIDIsAnchor, lockClause)
        }
    }

    let placeholders: Placeholders
    /// The person every statement is kept to, on a database that holds many; `nil` when the
    /// database is one person's store.
    let person: String?
    let anchors: Anchors
    /// Whether rows of a VALUES list need their types spelled out (PostgreSQL reads an untyped
    /// NULL there as text).
    let typedValues: Bool
    /// The function that takes the largest of its arguments.
    let greatest: String
    /// A collation that orders text by bytes, appended to ORDER BY terms.
    let byteOrder: String
    /// The most rows one INSERT or UPDATE writes. Many save round trips to a server; SQLite has
    /// none to save and compiles a statement's parameters in quadratic time, so it writes a row
    /// per (cached) statement.
    let rowsPerStatement: Int
    /// Whether a statement may name the index it reads (SQLite's `INDEXED BY`): a planner
    /// without statistics cannot tell a page that stops after 20 rows from one that sorts all
    /// matches, so the store picks from the count it has just read.
    let namesIndexes: Bool
    /// Whether a page of resources is read with the store's anchor and its count in one
    /// statement (one snapshot) rather than a transaction of four: on a server each statement
    /// is a round trip, and BEGIN and COMMIT are two more.
    let pagesInOneStatement: Bool

    package init(
        placeholders: Placeholders, person: String?, typedValues: Bool, greatest: String, byteOrder: String, rowsPerStatement: Int,
        namesIndexes: Bool = false, pagesInOneStatement: Bool = false, anchors: Anchors
    ) {
        (self.placeholders, self.person, self.anchors) = (placeholders, person, anchors)
        (self.typedValues, self.greatest, self.byteOrder, self.rowsPerStatement) = (typedValues, greatest, byteOrder, max(1, rowsPerStatement))
        (self.namesIndexes, self.pagesInOneStatement) = (namesIndexes, pagesInOneStatement)
    }

    /// The same dialect for statements that name their person as a value of each row, or
    /// belong to no one (``LogInsert``).
    var withoutPerson: SQLDialect {
        SQLDialect(
            placeholders: placeholders, person: nil, typedValues: typedValues, greatest: greatest, byteOrder: byteOrder,
            rowsPerStatement: rowsPerStatement, namesIndexes: namesIndexes, pagesInOneStatement: pagesInOneStatement, anchors: anchors)
    }

    /// The placeholder of the `index`th bound value (from 1).
    func placeholder(_ index: Int) -> String { (placeholders == .dollar ? "$" : "?") + String(index) }

    /// A placeholder with its type spelled out where the engine needs it.
    func cast(_ placeholder: String, _ value: SQLValue) -> String {
        guard typedValues else { return placeholder }
        switch value {
        case .int: return placeholder + "::bigint"
        case .double: return placeholder + "::double precision"
        case .text: return placeholder + "::text"
        case .blob: return placeholder + "::bytea"
        }
    }

    var resourceAddedColumn: String { anchors.resourceAdded }
    var rowIDIsAnchor: Bool { anchors.rowIDIsAnchor }
    var anchorCounter: (table: String, column: String) { (anchors.table, anchors.column) }
    var lockClause: String { anchors.lockClause }
}
