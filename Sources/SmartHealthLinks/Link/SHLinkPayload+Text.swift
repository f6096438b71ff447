import ByteEncodings
import Foundation

/// The link as text: `shlink:/` and the base64url payload, bare or after a viewer URL ending in
/// `#` (the fragment never reaches the viewer's server, so neither does the key).
extension SHLinkPayload {
    /// The scheme and slash every link starts with.
    public static let scheme = "shlink:/"
    /// The most bytes of link text read; anything longer is refused unread. A QR code holds
    /// under 3 KB, so this leaves room for extension members.
    public static let maximumLinkLength = 65_536

    /// Reads a link: `shlink:/…`, or a viewer URL with `#shlink:/…` (anything before that `#`),
    /// with surrounding whitespace ignored, the scheme in any case, and base64url padding
    /// tolerated. `+` and `/` are not base64url and are refused.
    ///
    /// - Throws: ``SHLError/payload(_:)`` for text that is not a link, and everything
    ///   ``init(json:)`` throws.
    public init(link text: String) throws(SHLError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let length = trimmed.utf8.count
        if length > Self.maximumLinkLength { throw .payload(.tooLong(length: length, limit: Self.maximumLinkLength)) }
        guard var encoded = Self.encodedPayload(in: Substring(trimmed)) else { throw .payload(.notALink) }
        // Padding is not base64url, but some encoders add it: up to two `=` are dropped.
        var padding = 0
        while padding < 2, encoded.last == "=" {
            encoded = encoded.dropLast()
            padding += 1
        }
        let payloadText = String(encoded)
        let decoded = Result { () throws(Base64URL.DecodingError) -> [UInt8] in try Base64URL.decode(payloadText) }
        switch decoded {
        case .success(let bytes):
            try self.init(json: Data(bytes))
        case .failure(let error):
            throw .payload(.notBase64URL(error))
        }
    }

    /// Whether text is a link (`shlink:/…`, or a viewer URL with `#shlink:/…`), before it is
    /// read: what an importer asks to tell a link from a path or a card's text.
    public static func isLink(_ text: String) -> Bool {
        encodedPayload(in: Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))) != nil
    }

    /// The text after `shlink:/`, at the start of `text` or after a `#`; `nil` when neither.
    static func encodedPayload(in text: Substring) -> Substring? {
        if let rest = afterScheme(text) { return rest }
        var searchFrom = text.startIndex
        while let hash = text[searchFrom...].firstIndex(of: "#") {
            let after = text.index(after: hash)
            if let rest = afterScheme(text[after...]) { return rest }
            searchFrom = after
        }
        return nil
    }

    /// The text after a leading `shlink:/` (in any case), or `nil`.
    private static func afterScheme(_ text: Substring) -> Substring? {
        let count = scheme.count
        guard text.prefix(count).lowercased() == scheme else { return nil }
        return text.dropFirst(count)
    }

    /// The bare link: `shlink:/` and the base64url (unpadded) of ``minifiedJSON``.
    public var link: String { Self.scheme + Base64URL.encode(minifiedJSON.utf8) }

    /// The link after a viewer URL, which is given a final `#` if it has none:
    /// `https://viewer.example.org#shlink:/…`.
    public func link(viewer: String) -> String {
        (viewer.hasSuffix("#") ? viewer : viewer + "#") + link
    }

    /// The URL a receiver fetches a `U` link's single file from: `url` with the `recipient` query
    /// parameter (percent-encoded) added. Meaningful only with ``SHLFlags/directFile``; without
    /// it the receiver POSTs an ``SHLManifestRequest`` to `url` instead.
    public func directFileURL(recipient: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let encoded = recipient.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        let separator = url.firstIndex(of: "?") == nil ? "?" : "&"
        return url + separator + "recipient=" + encoded
    }
}
