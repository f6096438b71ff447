import Foundation

/// One file behind a SMART Health Link, decrypted.
public struct SharedLinkFile: Sendable, Hashable {
    /// Its place in the manifest (0 for a `U` link's one file).
    public let index: Int
    /// The content type the manifest (or, for a `U` link, the JWE's `cty`) gave it; `nil` when
    /// neither did.
    public let contentType: String?
    /// The decrypted (and inflated) content.
    public let content: Data

    /// Makes a file.
    public init(index: Int, contentType: String?, content: Data) {
        self.index = index
        self.contentType = contentType
        self.content = content
    }
}
