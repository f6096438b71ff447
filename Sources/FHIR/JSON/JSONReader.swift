import Foundation

/// Reads JSON text into ``JSONValue``s, keeping number text and member order exactly.
///
/// The reader is strict about the grammar (RFC 8259), enforces ``JSONLimits`` and reports
/// the byte offset of every error.
public struct JSONReader: Sendable {
    /// The limits this reader enforces.
    public var limits: JSONLimits

    /// Makes a reader with the given limits.
    public init(limits: JSONLimits = .default) {
        self.limits = limits
    }

    /// Reads one JSON value that fills the whole document (surrounding whitespace allowed).
    public func read(_ data: Data) throws(JSONError) -> JSONValue {
        guard data.count <= limits.maxDocumentBytes else {
            throw JSONError(.documentTooLarge(size: data.count, limit: limits.maxDocumentBytes), at: 0)
        }
        return try JSONTape([UInt8](data), limits: limits).value()
    }

    /// Reads one JSON value from bytes.
    public func read(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try JSONTape(bytes, limits: limits).value()
    }

    /// Reads one JSON value from a string.
    public func read(_ text: String) throws(JSONError) -> JSONValue {
        try read(Array(text.utf8))
    }
}
