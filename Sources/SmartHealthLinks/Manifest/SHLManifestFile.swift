/// One file of a manifest: its content type and either a short-lived `location` to `GET` it from
/// or the JWE `embedded` in the manifest.
///
/// Decoding ignores unknown members and reads an unknown `status` as `nil`, so a newer server's
/// manifest still reads.
public struct SHLManifestFile: Codable, Sendable, Hashable {
    /// The file's content type: one of ``SHLContentType``'s, or another a receiver skips.
    public var contentType: String
    /// A URL that serves the JWE (`application/jose`) without authentication, for at most one
    /// hour after the manifest was served, possibly once only.
    public var location: String?
    /// The JWE itself, when the server embedded it (never longer than the request's
    /// `embeddedLengthMax`).
    public var embedded: String?
    /// When the file last changed, as the ISO 8601 text the server wrote.
    public var lastUpdated: String?
    /// Whether the file may change.
    public var status: SHLFileStatus?
    /// The FHIR version of FHIR content; absent means 4.0.1.
    public var fhirVersion: String?

    /// Makes a manifest entry; give `location`, `embedded`, or both.
    public init(
        contentType: String, location: String? = nil, embedded: String? = nil, lastUpdated: String? = nil,
        status: SHLFileStatus? = nil, fhirVersion: String? = nil
    ) {
        self.contentType = contentType
        self.location = location
        self.embedded = embedded
        self.lastUpdated = lastUpdated
        self.status = status
        self.fhirVersion = fhirVersion
    }

    /// The JSON member names, exactly as the spec spells them.
    enum CodingKeys: String, CodingKey {
        case contentType, location, embedded, lastUpdated, status, fhirVersion
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contentType = try container.decode(String.self, forKey: .contentType)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        embedded = try container.decodeIfPresent(String.self, forKey: .embedded)
        lastUpdated = try container.decodeIfPresent(String.self, forKey: .lastUpdated)
        let statusText = try container.decodeIfPresent(String.self, forKey: .status)
        status = statusText.flatMap { SHLFileStatus(rawValue: $0) }
        fhirVersion = try container.decodeIfPresent(String.self, forKey: .fhirVersion)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(contentType, forKey: .contentType)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(embedded, forKey: .embedded)
        try container.encodeIfPresent(lastUpdated, forKey: .lastUpdated)
        try container.encodeIfPresent(status?.rawValue, forKey: .status)
        try container.encodeIfPresent(fhirVersion, forKey: .fhirVersion)
    }
}
