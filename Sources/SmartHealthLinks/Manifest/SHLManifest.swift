import Foundation

/// A link's manifest: the files behind it, as the sharing server answers a manifest request.
///
/// `files` may be empty (and absent, read as empty). Unknown members are ignored, and so is the
/// optional `list` (a FHIR List resource describing the files): nothing here needs it, and a
/// receiver may ignore it.
public struct SHLManifest: Codable, Sendable, Hashable {
    /// How long after the manifest was served a receiver may still follow a file's `location`:
    /// one hour. Later, it asks for the manifest again.
    public static let locationLifetime: TimeInterval = 3600

    /// The files.
    public var files: [SHLManifestFile]

    /// Makes a manifest.
    public init(files: [SHLManifestFile]) {
        self.files = files
    }

    /// The JSON member names, exactly as the spec spells them.
    enum CodingKeys: String, CodingKey {
        case files
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        files = try container.decodeIfPresent([SHLManifestFile].self, forKey: .files) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(files, forKey: .files)
    }

    /// Reads a manifest and checks that every file has a `location` or `embedded` JWE.
    ///
    /// - Throws: ``SHLError/manifest(_:)``.
    public static func decode(_ data: Data) throws(SHLError) -> SHLManifest {
        let manifest: SHLManifest
        do {
            manifest = try JSONDecoder().decode(SHLManifest.self, from: data)
        } catch {
            throw SHLError.manifest(.malformed(path: DecodingErrorPath.describe(error)))
        }
        try manifest.check(embeddedLengthMax: nil)
        return manifest
    }

    /// Reads the answer to a manifest request: the manifest on a 2xx status, otherwise the error
    /// the spec gives the status (404: inactive; 401: wrong passcode, with the attempts left from
    /// the body; 429: polled too often).
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - body: the response body.
    ///   - url: the manifest URL, for messages.
    ///   - retryAfterSeconds: the `Retry-After` header in seconds, when present.
    /// - Throws: ``SHLError/notFound(url:)``, ``SHLError/passcodeRejected(remainingAttempts:)``,
    ///   ``SHLError/rateLimited(retryAfterSeconds:)``, ``SHLError/httpStatus(_:url:)``, or what
    ///   ``decode(_:)`` throws.
    public static func read(status: Int, body: Data, url: String, retryAfterSeconds: Int? = nil) throws(SHLError) -> SHLManifest {
        switch status {
        case 200..<300:
            return try decode(body)
        case 401:
            let failure = try? JSONDecoder().decode(SHLPasscodeFailure.self, from: body)
            throw SHLError.passcodeRejected(remainingAttempts: failure?.remainingAttempts)
        case 404:
            throw SHLError.notFound(url: url)
        case 429:
            throw SHLError.rateLimited(retryAfterSeconds: retryAfterSeconds)
        default:
            throw SHLError.httpStatus(status, url: url)
        }
    }

    /// Checks every file has a `location` or an `embedded` JWE, and, when a limit is given (the
    /// request's `embeddedLengthMax`, as a sharing server holds itself to it), that no embedded
    /// JWE is longer.
    ///
    /// - Throws: ``SHLError/manifest(_:)``.
    public func check(embeddedLengthMax: Int?) throws(SHLError) {
        for (index, file) in files.enumerated() {
            if file.location == nil && file.embedded == nil { throw .manifest(.fileWithoutContent(index: index)) }
            if let limit = embeddedLengthMax, let embedded = file.embedded, embedded.utf8.count > limit {
                throw .manifest(.embeddedTooLong(index: index, length: embedded.utf8.count, limit: limit))
            }
        }
    }
}
