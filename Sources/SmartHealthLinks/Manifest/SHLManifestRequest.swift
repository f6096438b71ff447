import Foundation

/// The body of a manifest request: `POST url` with `Content-Type: application/json`, for every
/// link without the `U` flag.
public struct SHLManifestRequest: Codable, Sendable, Hashable {
    /// Who is asking (an organization or a person), shown to the sharer in the link's access log.
    public var recipient: String
    /// The passcode the sharer gave out of band; required with the `P` flag, sent only then.
    public var passcode: String?
    /// The longest `embedded` JWE the receiver wants in the manifest; longer files come by
    /// `location`.
    public var embeddedLengthMax: Int?

    /// Makes a request body.
    public init(recipient: String, passcode: String? = nil, embeddedLengthMax: Int? = nil) {
        self.recipient = recipient
        self.passcode = passcode
        self.embeddedLengthMax = embeddedLengthMax
    }

    /// Makes the request a receiver sends for `link`: the passcode is required with `P` and left
    /// out without it (it is never sent where it is not asked for).
    ///
    /// - Throws: ``SHLError/passcodeRequired`` for a `P` link without a passcode.
    public init(for link: SHLinkPayload, recipient: String, passcode: String? = nil, embeddedLengthMax: Int? = nil) throws(SHLError) {
        let needsPasscode = link.flags.contains(.passcode)
        if needsPasscode, (passcode ?? "").isEmpty { throw .passcodeRequired }
        self.init(recipient: recipient, passcode: needsPasscode ? passcode : nil, embeddedLengthMax: embeddedLengthMax)
    }

    /// The JSON member names, exactly as the spec spells them.
    enum CodingKeys: String, CodingKey {
        case recipient, passcode, embeddedLengthMax
    }

    /// Reads a request body as a sharing server receives it: a JSON object with a non-empty
    /// string `recipient`; unknown members are ignored.
    ///
    /// - Throws: ``SHLError/manifestRequest(_:)``.
    public static func decode(_ data: Data) throws(SHLError) -> SHLManifestRequest {
        let request: SHLManifestRequest
        do {
            request = try JSONDecoder().decode(SHLManifestRequest.self, from: data)
        } catch {
            throw SHLError.manifestRequest(.malformed(path: DecodingErrorPath.describe(error)))
        }
        if request.recipient.isEmpty { throw .manifestRequest(.emptyRecipient) }
        if let limit = request.embeddedLengthMax, limit < 0 { throw .manifestRequest(.negativeEmbeddedLengthMax(limit)) }
        return request
    }
}
