import VerifiableRecords

/// Why a revocation list was refused.
///
/// Each case maps to its own verification code, so a person (or a script) can tell an issuer
/// whose list breaks the spec from one whose list could not be fetched.
public enum RevocationListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with one listed rid.
    public enum RIDProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing before the optional `.timestamp`.
        case empty
        /// More than the 24 characters the spec allows.
        case tooLong(length: Int)
        /// A byte outside the base64url alphabet, at this offset of the entry.
        case notBase64URL(offset: Int)
        /// What follows the `.` is not whole seconds since 1970 (digits only).
        case timestamp(String)

        public var description: String {
            switch self {
            case .empty: return "the rid is empty"
            case .tooLong(let n): return "the rid is \(n) characters; at most 24 are allowed"
            case .notBase64URL(let offset): return "byte \(offset) is not base64url"
            case .timestamp(let t): return "timestamp \"\(t.prefix(24))\" is not whole seconds (digits only)"
            }
        }
    }

    /// The list is not the spec's shape: not JSON, or no kid, method, ctr or rids.
    case invalid(String)
    /// Entry `index` of `rids` is not a rid with an optional `.timestamp`.
    case ridMalformed(index: Int, entry: String, problem: RIDProblem)
    /// The same rid is listed at `firstIndex` and again at `index` (timestamps aside).
    case ridDuplicate(rid: String, firstIndex: Int, index: Int)

    /// The code a card gets when its key's list is refused for this reason.
    public var code: VerificationCode {
        switch self {
        case .invalid: return .revocationUnavailable
        case .ridMalformed: return .revocationRIDMalformed
        case .ridDuplicate: return .revocationRIDDuplicate
        }
    }

    public var description: String {
        switch self {
        case .invalid(let m): return "invalid revocation list: \(m)"
        case let .ridMalformed(index, entry, problem): return "revocation list entry \(index) \"\(entry.prefix(40))\" is not a rid: \(problem)"
        case let .ridDuplicate(rid, first, index): return "revocation list lists rid \(rid) twice (entries \(first) and \(index))"
        }
    }
}
