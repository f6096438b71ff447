import Foundation

/// One result row, read by column position; a value of the wrong type is a damaged record.
package struct SQLRow: Sendable {
    package let cells: [SQLCell]

    package init(_ cells: [SQLCell]) { self.cells = cells }

    private func cell(_ i: Int) throws -> SQLCell {
        guard cells.indices.contains(i) else { throw HealthStoreError.corruptRecord("a row has no column \(i)") }
        return cells[i]
    }

    private func mismatch(_ i: Int, _ type: String) -> HealthStoreError {
        .corruptRecord("column \(i) holds no \(type)")
    }

    /// Whether column `i` is NULL (an outer join found no row).
    package func isNull(_ i: Int) throws -> Bool {
        if case .null = try cell(i) { return true }
        return false
    }

    /// The columns after the first `n`: the second table of a join, read by its own reader.
    package func dropping(_ n: Int) -> SQLRow { SQLRow(Array(cells.dropFirst(n))) }

    package func optionalInt(_ i: Int) throws -> Int64? {
        switch try cell(i) {
        case .null: return nil
        case .int(let v): return v
        default: throw mismatch(i, "integer")
        }
    }

    package func optionalDouble(_ i: Int) throws -> Double? {
        switch try cell(i) {
        case .null: return nil
        case .double(let v): return v
        case .int(let v): return Double(v)
        default: throw mismatch(i, "number")
        }
    }

    /// Text; bytes are read as UTF-8 (stores written before sealing kept some text as bytes).
    package func optionalString(_ i: Int) throws -> String? {
        switch try cell(i) {
        case .null: return nil
        case .text(let v): return v
        case .blob(let v): return String(decoding: v, as: UTF8.self)
        default: throw mismatch(i, "text")
        }
    }

    /// Bytes; text is read as its UTF-8 bytes.
    package func optionalData(_ i: Int) throws -> Data? {
        switch try cell(i) {
        case .null: return nil
        case .blob(let v): return v
        case .text(let v): return Data(v.utf8)
        default: throw mismatch(i, "bytes")
        }
    }

    package func int(_ i: Int) throws -> Int64 {
        guard let v = try optionalInt(i) else { throw mismatch(i, "integer") }
        return v
    }

    package func double(_ i: Int) throws -> Double {
        guard let v = try optionalDouble(i) else { throw mismatch(i, "number") }
        return v
    }

    package func string(_ i: Int) throws -> String {
        guard let v = try optionalString(i) else { throw mismatch(i, "text") }
        return v
    }

    package func data(_ i: Int) throws -> Data {
        guard let v = try optionalData(i) else { throw mismatch(i, "bytes") }
        return v
    }

    package func bool(_ i: Int) throws -> Bool { try int(i) != 0 }

    /// A sealed column opened as text.
    package func opened(_ i: Int, _ sealer: any RecordSealer) throws -> String {
        String(decoding: try sealer.open(try data(i)), as: UTF8.self)
    }

    /// An optional sealed column opened.
    package func openedData(_ i: Int, _ sealer: any RecordSealer) throws -> Data? {
        try optionalData(i).map { try sealer.open($0) }
    }
}
