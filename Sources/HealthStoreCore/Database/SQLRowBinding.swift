import Foundation

/// One row's values, bound in order into a statement prepared once, then run.
package protocol SQLRowBinding {
    mutating func bind(_ value: Int64?)
    mutating func bind(_ value: Double?)
    /// UTF-8 text (`nil` binds NULL); the bytes need stay valid only until ``run()`` returns.
    mutating func bindText(_ utf8: UnsafeRawBufferPointer?)
    /// A blob (`nil` binds NULL); the bytes need stay valid only until ``run()`` returns.
    mutating func bindBlob(_ bytes: UnsafeRawBufferPointer?)
    /// Runs the statement with the values bound since the last run.
    mutating func run() throws
}

extension SQLRowBinding {
    /// Binds text, valid while `body` runs (the row must run inside it).
    package mutating func bind<T>(_ text: String?, _ body: (inout Self) throws -> T) rethrows -> T {
        guard let text else {
            bindText(nil)
            return try body(&self)
        }
        return try text.withUTF8Bytes { utf8 in
            bindText(utf8)
            return try body(&self)
        }
    }

    /// Binds `values` in order (text and blobs in place) and runs the row.
    package mutating func run(binding values: ArraySlice<SQLValue>) throws {
        guard let value = values.first else { return try run() }
        let rest = values.dropFirst()
        switch value {
        case .int(let v):
            bind(v)
            try run(binding: rest)
        case .double(let v):
            bind(v)
            try run(binding: rest)
        case .text(let v): try bind(v) { try $0.run(binding: rest) }
        case .blob(let v): try bind(v) { try $0.run(binding: rest) }
        }
    }

    /// Binds a blob, valid while `body` runs (the row must run inside it).
    package mutating func bind<T>(_ blob: Data?, _ body: (inout Self) throws -> T) rethrows -> T {
        guard let blob else {
            bindBlob(nil)
            return try body(&self)
        }
        return try blob.withUnsafeBytes { bytes in
            bindBlob(bytes)
            return try body(&self)
        }
    }
}

/// Collects bound rows as values, for engines that send rows as statement text.
struct CollectedRows: SQLRowBinding {
    var rows: [[SQLValue]] = []
    private var current: [SQLValue] = []

    mutating func bind(_ value: Int64?) { current.append(.int(value)) }
    mutating func bind(_ value: Double?) { current.append(.double(value)) }
    mutating func bindText(_ utf8: UnsafeRawBufferPointer?) { current.append(.text(utf8.map { String(decoding: $0, as: UTF8.self) })) }
    mutating func bindBlob(_ bytes: UnsafeRawBufferPointer?) { current.append(.blob(bytes.map { Data($0) })) }
    mutating func run() throws {
        rows.append(current)
        current = []
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes, in place when the string keeps them
    /// contiguously (native strings do), else from a copy.
    package func withUTF8Bytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) { return result }
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
