import Foundation

/// SQL text with its bound values, built piece by piece for one engine's dialect; every value
/// is a bind, never text.
///
/// On a database that holds many people, the person is bound first (so it is always the first
/// placeholder), and ``scope(_:)``, ``personColumn`` and friends put them into every statement:
/// the core never writes a statement that could read another person's rows.
package struct SQLStatement: Sendable {
    package let dialect: SQLDialect
    package private(set) var text = ""
    package private(set) var values: [SQLValue] = []
    private let personPlaceholder: String?

    /// Starts a statement; `text` follows the person's bind.
    package init(_ dialect: SQLDialect, _ text: String = "") {
        self.dialect = dialect
        if let person = dialect.person {
            values.append(.text(person))
            personPlaceholder = dialect.placeholder(1)
        } else {
            personPlaceholder = nil
        }
        self.text = text
    }

    package static func += (q: inout SQLStatement, sql: String) { q.text += sql }

    /// Binds a value and returns its placeholder.
    package mutating func bind(_ value: SQLValue) -> String {
        values.append(value)
        return dialect.placeholder(values.count)
    }

    package mutating func bind(_ v: Int64?) -> String { bind(.int(v)) }
    package mutating func bind(_ v: Int?) -> String { bind(.int(v.map(Int64.init))) }
    package mutating func bind(_ v: Double?) -> String { bind(.double(v)) }
    package mutating func bind(_ v: String?) -> String { bind(.text(v)) }
    package mutating func bind(_ v: Data?) -> String { bind(.blob(v)) }

    /// The same text with other values for its placeholders (the person's stays first): one
    /// statement text serves many rows.
    /// The values that stay when ``replacingValues(with:)`` gives a row its own (the person's, if any).
    package var fixedValues: ArraySlice<SQLValue> { values.prefix(personPlaceholder == nil ? 0 : 1) }

    package func replacingValues(with newValues: some Sequence<SQLValue>) -> SQLStatement {
        var copy = self
        copy.values.removeSubrange((personPlaceholder == nil ? 0 : 1)...)
        copy.values.append(contentsOf: newValues)
        return copy
    }

    /// A bind with its type spelled out where the dialect needs it (rows of a VALUES list).
    package mutating func typed(_ value: SQLValue) -> String { dialect.cast(bind(value), value) }

    /// `a, b, …` placeholders for byte values; `NULL` (matching nothing) for none.
    package mutating func list(_ values: [Data]) -> String {
        values.isEmpty ? "NULL" : values.map { bind($0) }.joined(separator: ", ")
    }

    /// `a, b, …` placeholders for integers; `NULL` (matching nothing) for none.
    package mutating func list(_ values: [Int64]) -> String {
        values.isEmpty ? "NULL" : values.map { bind($0) }.joined(separator: ", ")
    }

    /// The condition that keeps a table (by alias, or unqualified for `nil`) to this store's
    /// person: `r.person_id = $1`, or `TRUE` on a single-person database.
    package func scope(_ alias: String? = nil) -> String {
        guard let personPlaceholder else { return "TRUE" }
        return (alias.map { "\($0)." } ?? "") + "person_id = \(personPlaceholder)"
    }

    /// `s.person_id = r.person_id AND ` for a join between two person tables, or nothing.
    package func sameScope(_ a: String, _ b: String) -> String {
        personPlaceholder == nil ? "" : "\(a).person_id = \(b).person_id AND "
    }

    /// `person_id, ` at the head of an INSERT's columns, or nothing.
    package var personColumn: String { personPlaceholder == nil ? "" : "person_id, " }

    /// The person's placeholder and a comma at the head of an INSERT's values, or nothing.
    package var personValue: String { personPlaceholder.map { "\($0), " } ?? "" }

    /// The key of a table with one row per store (the anchor counter, the store key, the
    /// anchor secret): the person on a shared database, row 1 on a single-person one.
    package var singletonColumn: String { personPlaceholder == nil ? "id" : "person_id" }

    /// The value of ``singletonColumn``.
    package var singletonValue: String { personPlaceholder ?? "1" }

    /// `singleton = value`: the condition that picks this store's row of a one-row-per-store table.
    package var singleton: String { "\(singletonColumn) = \(singletonValue)" }
}
