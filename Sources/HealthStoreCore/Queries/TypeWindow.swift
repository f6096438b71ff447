/// One type an app may read, and how far: records of the type first added at or before
/// ``addedThrough`` (every record, when `nil`).
///
/// This is the one storage primitive consent needs from an engine: ``RecordPredicate/visible(_:)``
/// and ``SamplePredicate/visible(_:)`` take a list of windows, and engines turn it into a
/// filter on type and first-added anchor. Which windows an app gets is decided by ``AppView``,
/// outside the engines.
public struct TypeWindow<Kind: Hashable & Sendable & RawRepresentable<String>>: Sendable, Hashable {
    /// The consent category or quantity type the window opens.
    public let type: Kind
    /// The last first-added anchor visible; `nil` for no limit.
    public let addedThrough: QueryAnchor?

    /// Makes a window; a `nil` `addedThrough` opens every record or sample of the type.
    public init(_ type: Kind, addedThrough: QueryAnchor?) {
        self.type = type
        self.addedThrough = addedThrough
    }
}
