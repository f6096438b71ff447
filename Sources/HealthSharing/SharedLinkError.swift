import Foundation
import OutboundHTTP
import SmartHealthLinks

/// Why following a SMART Health Link failed.
public enum SharedLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the protocol refused: the link, the server's answer, or a file (``SHLError/code``
    /// names it, e.g. `shl.passcode`).
    case link(SHLError)
    /// The manifest or a file could not be fetched (refused address, timeout, too large…).
    case transport(url: String, OutboundError)
    /// The manifest lists more files than a receiver takes.
    case tooManyFiles(count: Int, limit: Int)

    /// A stable code: the protocol's (`shl.…`), `shl.fetch` for a transport failure, or
    /// `shl.tooLarge` for too many files.
    public var code: String {
        switch self {
        case .link(let error): return error.code
        case .transport: return "shl.fetch"
        case .tooManyFiles: return "shl.tooLarge"
        }
    }

    public var description: String {
        switch self {
        case .link(let error): return error.description
        case .transport(let url, let error): return "could not fetch \(url): \(error)"
        case .tooManyFiles(let count, let limit): return "the link's manifest lists \(count) files; at most \(limit) are taken"
        }
    }
}
