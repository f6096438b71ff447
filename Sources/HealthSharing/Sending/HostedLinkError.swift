import Foundation
import HealthStoreCore
import SmartHealthLinks

/// Why a link could not be made, each with a stable code.
public enum HostedLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was named to share.
    case noContent
    /// `--check-in` goes alone: it is its own bundle.
    case checkInWithOthers
    /// A record type that has no place in a summary (coverage, clinical notes) or is unknown.
    case typeNotShareable(String)
    /// The records named hold nothing to share.
    case nothingToShare(String)
    /// No card has this identifier (or prefix).
    case unknownCard(String)
    /// More than one card starts with this prefix.
    case ambiguousCard(String)
    /// A stored record that is not a SMART Health Card (an EU DCC).
    case notASmartHealthCard(String)
    /// The expiry is not in the future, or more than ``LinkPublisher/longestLifetime`` away.
    case expiry(String)
    /// A passcode of the wrong length, attempts out of range, or attempts without a passcode.
    case passcode(String)
    /// A label over 80 characters.
    case labelTooLong(Int)
    /// A direct (`U`) link needs exactly one file and no passcode.
    case directFile(String)
    /// The public URL cannot make a link (not http(s), or too long for the 128-character `url`).
    case publicURL(String)
    /// Building or encrypting the files failed.
    case link(SHLError)
    /// The store refused.
    case store(String)

    /// A stable code for scripts and logs.
    public var code: String {
        switch self {
        case .noContent: return "share.noContent"
        case .checkInWithOthers: return "share.checkInWithOthers"
        case .typeNotShareable: return "share.type"
        case .nothingToShare: return "share.nothingToShare"
        case .unknownCard: return "share.unknownCard"
        case .ambiguousCard: return "share.ambiguousCard"
        case .notASmartHealthCard: return "share.notACard"
        case .expiry: return "share.expiry"
        case .passcode: return "share.passcode"
        case .labelTooLong: return "share.label"
        case .directFile: return "share.directFile"
        case .publicURL: return "share.publicURL"
        case .link(let e): return e.code
        case .store: return "share.store"
        }
    }

    /// Whether the error is in what was asked (a usage error), not in doing it.
    public var isUsage: Bool {
        switch self {
        case .noContent, .checkInWithOthers, .typeNotShareable, .expiry, .passcode, .labelTooLong, .directFile, .publicURL: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .noContent: return "name what to share: a summary, a check-in bundle, record types or cards"
        case .checkInWithOthers: return "a check-in bundle is shared alone"
        case .typeNotShareable(let t): return "\(t) cannot be shared in a summary collection (allergy, condition, immunization, lab-result, medication, procedure, vital-sign can)"
        case .nothingToShare(let what): return "nothing to share: \(what)"
        case .unknownCard(let id): return "no card has the identifier \(id)"
        case .ambiguousCard(let id): return "more than one card starts with \(id); give more of the identifier"
        case .notASmartHealthCard(let id): return "card \(id) is not a SMART Health Card (an EU DCC cannot go in a link)"
        case .expiry(let why): return "expiry: \(why)"
        case .passcode(let why): return "passcode: \(why)"
        case .labelTooLong(let n): return "the label has \(n) characters; at most \(SHLinkPayload.maximumLabelLength)"
        case .directFile(let why): return "a direct-file (U) link \(why)"
        case .publicURL(let why): return "public URL: \(why)"
        case .link(let e): return e.description
        case .store(let m): return m
        }
    }
}
