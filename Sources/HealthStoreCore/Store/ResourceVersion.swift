import Foundation

/// An earlier version of a stored resource: the bytes the store kept when a newer version of
/// the same resource (same source, type and id) replaced them.
public struct ResourceVersion: Sendable, Hashable {
    /// The anchor this version was stored at: its version id.
    public let anchor: QueryAnchor
    /// When a newer version replaced it.
    public let replacedDate: Date
    /// The resource's JSON as it was.
    public let data: Data

    /// A version from its parts (the store makes these).
    public init(anchor: QueryAnchor, replacedDate: Date, data: Data) {
        self.anchor = anchor
        self.replacedDate = replacedDate
        self.data = data
    }
}
