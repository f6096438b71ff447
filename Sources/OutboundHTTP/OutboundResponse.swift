import Foundation

/// A complete answer: status, headers and the whole (capped) body.
public struct OutboundResponse: Sendable, Equatable {
    /// The HTTP status code of the final answer; an error status is answered, not thrown.
    public let status: Int
    /// The headers, in order, names as sent.
    public let headers: [(name: String, value: String)]
    /// The body, never longer than the policy's cap.
    public let body: Data

    /// The first value of a header, matched without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (a: OutboundResponse, b: OutboundResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}
