/// A link's flags: the payload's `flag`, single letters in alphabetical order.
///
/// Readers ignore letters they do not know (the spec lets new, safely ignorable flags appear
/// without a version change); ``init(letters:)`` returns them so a caller can report them.
public struct SHLFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `L`: long-term use; the files may change and the manifest may be polled.
    public static let longTerm = SHLFlags(rawValue: 1 << 0)
    /// `P`: the manifest request needs a passcode the sharer gives out of band.
    public static let passcode = SHLFlags(rawValue: 1 << 1)
    /// `U`: `url` is the single encrypted file, fetched with `GET url?recipient=…`, no manifest.
    /// Never together with `P`.
    public static let directFile = SHLFlags(rawValue: 1 << 2)

    /// Each known flag with its letter, in alphabetical order.
    static let letterTable: [(letter: Character, flag: SHLFlags)] = [("L", .longTerm), ("P", .passcode), ("U", .directFile)]

    /// The flags named in a `flag` string; letters that name no flag are ignored.
    public init(letters: String) {
        self = Self.parse(letters).flags
    }

    /// The flags named in a `flag` string, and the letters it holds that name no flag (in the
    /// order they came), for a reader to report. Order and repetition are not checked.
    public static func parse(_ letters: String) -> (flags: SHLFlags, unknown: String) {
        var flags: SHLFlags = []
        var unknown = ""
        for character in letters {
            if let entry = letterTable.first(where: { $0.letter == character }) {
                flags.insert(entry.flag)
            } else {
                unknown.append(character)
            }
        }
        return (flags, unknown)
    }

    /// The flags as the payload writes them: `L`, `P`, `U` in alphabetical order; empty when none.
    public var letters: String {
        String(Self.letterTable.filter { contains($0.flag) }.map { $0.letter })
    }

    public var description: String { letters }
}
