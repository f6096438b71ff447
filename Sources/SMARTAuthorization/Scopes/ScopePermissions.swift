/// The interactions a SMART resource scope allows, and the notation it was written in.
///
/// SMART v1 wrote `read`, `write` or `*`; SMART v2 writes a non-empty subset of `cruds`, in
/// that order (`c`reate, `r`ead, `u`pdate, `d`elete, `s`earch). v1 `read` is v2 `rs`, `write`
/// is `cud` and `*` is `cruds`. The notation is kept so a granted scope is written back the
/// way the app asked for it.
public struct ScopePermissions: Sendable, Hashable, CustomStringConvertible {
    /// The notation a scope's permissions were written in.
    public enum Notation: Sendable, Hashable {
        /// SMART App Launch 1: `read`, `write`, `*`.
        case version1
        /// SMART App Launch 2: letters of `cruds`.
        case version2
    }

    /// The interactions allowed.
    public let interactions: SMARTInteractions
    /// How they were written.
    public let notation: Notation

    /// Permissions from their interactions and notation.
    ///
    /// In ``Notation/version1`` only `rs`, `cud` and `cruds` have a spelling; other sets are
    /// written in v2 letters by ``text``.
    public init(interactions: SMARTInteractions, notation: Notation) {
        self.interactions = interactions
        self.notation = notation
    }

    /// Reads the text after a resource scope's `.`: `read`, `write`, `*`, or v2 letters.
    /// - Parameter scope: the whole scope token, named in errors.
    init(parsing text: Substring, scope: String) throws(ScopeError) {
        switch text {
        case "read": self.init(interactions: [.read, .search], notation: .version1)
        case "write": self.init(interactions: [.create, .update, .delete], notation: .version1)
        case "*": self.init(interactions: .all, notation: .version1)
        case "": throw .missingPermissions(scope: scope)
        default:
            var interactions: SMARTInteractions = []
            var lastIndex = -1
            for character in text {
                guard let index = SMARTInteractions.letters.firstIndex(of: character) else {
                    throw .unknownPermission(scope: scope, permissions: String(text))
                }
                guard index > lastIndex else { throw .permissionsOutOfOrder(scope: scope, permissions: String(text)) }
                lastIndex = index
                interactions.insert(SMARTInteractions.ordered[index])
            }
            self.init(interactions: interactions, notation: .version2)
        }
    }

    /// Whether the scope lets an app read or search, the only interactions this server serves.
    public var allowsReading: Bool { !interactions.isDisjoint(with: .readAndSearch) }

    /// These permissions without create, update and delete, in the same notation; `nil` when
    /// nothing is left (v1 `write`, v2 `cud`).
    ///
    /// v1 `read` and `*` both become `read`; v2 letters keep only `r` and `s`.
    public var readOnly: ScopePermissions? {
        let kept = interactions.intersection(.readAndSearch)
        guard !kept.isEmpty else { return nil }
        return ScopePermissions(interactions: kept, notation: notation)
    }

    /// The permissions as written in a scope: `read`, `write` or `*` in v1 (when the set has a
    /// v1 spelling), else v2 letters in `cruds` order.
    public var text: String {
        if notation == .version1 {
            switch interactions {
            case .readAndSearch: return "read"
            case [.create, .update, .delete]: return "write"
            case .all: return "*"
            default: break
            }
        }
        return String(SMARTInteractions.ordered.indices.compactMap { i in
            interactions.contains(SMARTInteractions.ordered[i]) ? SMARTInteractions.letters[i] : nil
        })
    }

    public var description: String { text }
}

/// The FHIR interactions a SMART v2 permission letter names: `c`, `r`, `u`, `d`, `s`.
public struct SMARTInteractions: OptionSet, Sendable, Hashable {
    /// One bit per interaction, in `cruds` order from the lowest bit.
    public let rawValue: UInt8

    /// Makes a set from its bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `c`: create.
    public static let create = SMARTInteractions(rawValue: 1 << 0)
    /// `r`: read (by id, vread, history of one resource).
    public static let read = SMARTInteractions(rawValue: 1 << 1)
    /// `u`: update.
    public static let update = SMARTInteractions(rawValue: 1 << 2)
    /// `d`: delete.
    public static let delete = SMARTInteractions(rawValue: 1 << 3)
    /// `s`: search (and history of a type).
    public static let search = SMARTInteractions(rawValue: 1 << 4)

    /// `rs`: what v1 `read` means, and all this server serves.
    public static let readAndSearch: SMARTInteractions = [.read, .search]
    /// `cruds`.
    public static let all: SMARTInteractions = [.create, .read, .update, .delete, .search]

    /// The interactions in letter order, beside ``letters``.
    static let ordered: [SMARTInteractions] = [.create, .read, .update, .delete, .search]
    /// The v2 letters, in the order scopes must write them.
    static let letters: [Character] = ["c", "r", "u", "d", "s"]
}
