import HealthStoreCore

/// How anchors are written for, and read back from, one reader.
///
/// The owner sees the store's own positions as decimal text (`"120"`); an app sees only its
/// opaque per-app tokens (``AppView/anchorToken(_:)``), which hide how many changes it may not
/// see lie between two of them. Every encoder writes anchors as strings, so an `anchor` member
/// has one type whoever reads it.
public struct AnchorCoding: Sendable {
    /// Writes an anchor as the reader sees it: decimal text for the owner, an opaque token for an app.
    public let encode: @Sendable (QueryAnchor) -> String
    /// Reads one back; `nil` for text this coding did not write.
    public let decode: @Sendable (String) -> QueryAnchor?

    /// Makes a coding from its two directions.
    public init(encode: @escaping @Sendable (QueryAnchor) -> String, decode: @escaping @Sendable (String) -> QueryAnchor?) {
        self.encode = encode
        self.decode = decode
    }

    /// The store's positions as decimal text: what the owner (the CLI without `--as-app`) sees.
    public static let store = AnchorCoding(
        encode: { String($0.rawValue) },
        decode: { text in Int64(text).flatMap { $0 >= 0 ? QueryAnchor(rawValue: $0) : nil } })

    /// An app's opaque tokens: what the app API hands out, and the CLI with `--as-app`.
    public static func app(_ view: AppView) -> AnchorCoding {
        AnchorCoding(encode: { view.anchorToken($0) }, decode: { try? view.anchor(token: $0) })
    }

    /// Reads parameter `name`'s anchor; `nil` when absent or empty (from the start).
    public func anchor(_ name: ParameterName = .anchor, in p: QueryParameters) throws(ParameterError) -> QueryAnchor? {
        guard let text = try p.single(name), !text.isEmpty else { return nil }
        guard let anchor = decode(text) else { throw .notAnAnchor(name, value: text) }
        return anchor
    }
}
