import Foundation

/// What differs between the SQL the engines speak, and nothing else: the store's statements
/// are written once (``DatabaseHealthStore``) over this.
package protocol SQLDialect: Sendable {
    /// The person every statement is kept to, on a database that holds many; `nil` when the
    /// database is one person's store.
    var person: String? { get }
    /// The placeholder of the `index`th bound value (from 1).
    func placeholder(_ index: Int) -> String
    /// A placeholder with its type spelled out, for rows of a VALUES list.
    func cast(_ placeholder: String, _ value: SQLValue) -> String
    /// The column that holds the anchor at which a resource was first added.
    var resourceAddedColumn: String { get }
    /// Whether rows of samples and cards take their first anchor as their id (else the
    /// database numbers them).
    var rowIDIsAnchor: Bool { get }
    /// The table and column of the store's anchor counter (one row per store).
    var anchorCounter: (table: String, column: String) { get }
    /// Appended to the read of the anchor counter at the start of a write, to lock it.
    var lockClause: String { get }
    /// The name of the function that takes the largest of its arguments.
    var greatest: String { get }
    /// A collation that orders text by bytes, appended to ORDER BY terms.
    var byteOrder: String { get }
}
