import ByteEncodings
import Foundation

/// Why a JSON document could not be read, and where.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The document ended in the middle of a value.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedByte(UInt8)
        /// A number that breaks the JSON grammar.
        case invalidNumber
        /// A backslash escape that JSON does not define, or a bad `\u` sequence.
        case invalidEscape
        /// A string with bytes that are not UTF-8, or a raw control character.
        case invalidString
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// A string longer than the limit, in bytes.
        case stringTooLong(limit: Int)
        /// A document larger than the limit, in bytes.
        case documentTooLarge(size: Int, limit: Int)
        /// More members or elements in one container than the limit allows.
        case tooManyElements(limit: Int)
        /// Something other than whitespace after the value.
        case trailingCharacters
        /// The document starts with a UTF-8 byte-order mark, which JSON (RFC 8259) forbids.
        case byteOrderMark
        /// The document is empty or only whitespace.
        case empty
    }

    /// What went wrong.
    public let reason: Reason
    /// The byte offset in the document where it went wrong.
    public let offset: Int

    /// Makes an error; `offset` is a byte offset into the document (0 for a document rejected by size).
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd: what = "the document ends in the middle of a value"
        case .unexpectedByte(let b):
            let shown = (0x21...0x7e).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "0x" + Hex.encode([b], uppercase: true)
            what = "unexpected \(shown)"
        case .invalidNumber: what = "invalid number"
        case .invalidEscape: what = "invalid escape sequence in a string"
        case .invalidString: what = "string is not valid UTF-8 or holds a raw control character"
        case .tooDeep(let limit): what = "nested deeper than \(limit) levels"
        case .stringTooLong(let limit): what = "string longer than \(limit) bytes"
        case .documentTooLarge(let size, let limit): what = "document of \(size) bytes is larger than the limit of \(limit) bytes"
        case .tooManyElements(let limit): what = "more than \(limit) members or elements in one container"
        case .trailingCharacters: what = "unexpected characters after the JSON value"
        case .byteOrderMark: what = "starts with a byte-order mark"
        case .empty: what = "empty document"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }
}

