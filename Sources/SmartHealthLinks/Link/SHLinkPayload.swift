import FHIR
import Foundation

/// The payload of a SMART Health Link: the JSON object that `shlink:/` carries, base64url-encoded
/// (HL7 SMART Health Cards and Links IG, STU1, "Construct a SMART Health Link Payload").
///
/// Made by a sharer with ``init(url:key:expiration:flags:label:version:)``, which holds every rule
/// the spec gives the sharer; read by a receiver with ``init(link:)`` or ``init(json:)``, which
/// refuse what cannot be followed (no url, a bad key, `P` with `U`, another version) and tolerate,
/// with a ``SHLPayloadWarning``, what the spec leaves to the receiver (a malformed `exp`, a long
/// label, unknown flags). Unknown members are ignored, as the spec requires.
public struct SHLinkPayload: Sendable, Hashable {
    /// The only version this codec reads and writes: 1.
    public static let supportedVersion = 1
    /// The longest `url` the spec allows: 128 characters.
    public static let maximumURLLength = 128
    /// The longest `label` the spec allows: 80 characters.
    public static let maximumLabelLength = 80
    /// An `exp` above this (the year 5138 in seconds) is taken for milliseconds and ignored.
    public static let millisecondsThreshold: Int64 = 100_000_000_000

    /// The manifest URL, or with ``SHLFlags/directFile`` the single file's URL.
    public let url: String
    /// The key every file behind the link is encrypted with.
    public let key: SHLKey
    /// When the link expires, in seconds since 1970: a hint for the receiver (the server enforces
    /// it). `nil` when absent or not trusted (see ``warnings``).
    public let expiration: Int64?
    /// The link's flags (`L`, `P`, `U`).
    public let flags: SHLFlags
    /// A short description of the data for the receiver to show, at most 80 characters.
    public let label: String?
    /// The payload's `v` as written; `nil` when absent, which means 1.
    public let version: Int?
    /// What a reader tolerated in the payload; empty for a payload made here.
    public let warnings: [SHLPayloadWarning]

    /// The protocol version the link follows: `v`, or 1 when absent.
    public var effectiveVersion: Int { version ?? Self.supportedVersion }

    /// Makes a link's payload, holding the sharer to the spec.
    ///
    /// - Parameters:
    ///   - url: the manifest URL (or the file's, with `U`): at most 128 characters; the spec asks
    ///     for at least 256 bits of entropy in it (32 random bytes in base64url, say).
    ///   - key: the files' key; make one with ``SHLKey/random()``.
    ///   - expiration: seconds since 1970, or `nil` for no expiry.
    ///   - flags: `L`, `P`, `U`; never `P` with `U`.
    ///   - label: at most 80 characters.
    ///   - version: `nil` to leave `v` out (it means 1), or 1.
    /// - Throws: ``SHLError/payload(_:)`` or ``SHLError/unsupportedVersion(_:label:)``.
    public init(
        url: String, key: SHLKey, expiration: Int64? = nil, flags: SHLFlags = [], label: String? = nil, version: Int? = nil
    ) throws(SHLError) {
        if url.isEmpty { throw .payload(.emptyURL) }
        if url.count > Self.maximumURLLength { throw .payload(.urlTooLong(length: url.count)) }
        if let label, label.count > Self.maximumLabelLength { throw .payload(.labelTooLong(length: label.count)) }
        if let expiration, expiration < 0 { throw .payload(.negativeExpiration(expiration)) }
        if flags.contains(.passcode) && flags.contains(.directFile) { throw .payload(.passcodeWithDirectFile) }
        if let version, version != Self.supportedVersion { throw .unsupportedVersion(version, label: label) }
        self.init(validURL: url, key: key, expiration: expiration, flags: flags, label: label, version: version, warnings: [])
    }

    /// Reads a payload's JSON (the bytes `shlink:/` carries, decoded).
    ///
    /// - Throws: ``SHLError/payload(_:)`` when it is not a JSON object, `url` or `key` is missing
    ///   or mistyped, `url` is empty, or the flags hold `P` and `U`; ``SHLError/key(_:)`` for a
    ///   key that is not 43 base64url characters; ``SHLError/unsupportedVersion(_:label:)`` for a
    ///   `v` other than 1 (checked first, since another version may change the other members).
    public init(json data: Data) throws(SHLError) {
        guard let object = (try? JSONReader().read(data))?.objectValue else { throw SHLError.payload(.notJSONObject) }
        var warnings: [SHLPayloadWarning] = []

        // The label and the version first: every version keeps `label`, so a receiver can name
        // the link it cannot open.
        let label = try Self.optionalString("label", in: object)
        let version: Int?
        switch object["v"] ?? .null {
        case .null: version = nil
        case .number(let n):
            guard let whole = Self.wholeNumber(n), n.isInteger || Double(whole) == n.doubleValue else { throw SHLError.payload(.wrongType(member: "v")) }
            version = Int(clamping: whole)
        default: throw SHLError.payload(.wrongType(member: "v"))
        }
        if let version, version != Self.supportedVersion { throw SHLError.unsupportedVersion(version, label: label) }

        guard let url = try Self.optionalString("url", in: object) else { throw SHLError.payload(.missing(member: "url")) }
        if url.isEmpty { throw SHLError.payload(.emptyURL) }
        guard let keyText = try Self.optionalString("key", in: object) else { throw SHLError.payload(.missing(member: "key")) }
        let key = try SHLKey(base64url: keyText)

        var flags: SHLFlags = []
        if let letters = try Self.optionalString("flag", in: object) {
            let parsed = SHLFlags.parse(letters)
            flags = parsed.flags
            if !parsed.unknown.isEmpty { warnings.append(.unknownFlags(parsed.unknown)) }
        }
        if flags.contains(.passcode) && flags.contains(.directFile) { throw SHLError.payload(.passcodeWithDirectFile) }

        let expiration = Self.trustedExpiration(object["exp"], warnings: &warnings)
        if url.count > Self.maximumURLLength { warnings.append(.urlTooLong(length: url.count)) }
        if let label, label.count > Self.maximumLabelLength { warnings.append(.labelTooLong(length: label.count)) }

        self.init(validURL: url, key: key, expiration: expiration, flags: flags, label: label, version: version, warnings: warnings)
    }

    /// The members, already checked.
    init(validURL url: String, key: SHLKey, expiration: Int64?, flags: SHLFlags, label: String?, version: Int?, warnings: [SHLPayloadWarning]) {
        self.url = url
        self.key = key
        self.expiration = expiration
        self.flags = flags
        self.label = label
        self.version = version
        self.warnings = warnings
    }

    /// A string member, `nil` when absent or `null`.
    private static func optionalString(_ name: String, in object: JSONObject) throws(SHLError) -> String? {
        switch object[name] ?? .null {
        case .null: return nil
        case .string(let value): return value
        default: throw SHLError.payload(.wrongType(member: name))
        }
    }

    /// `exp` when it is a plausible number of seconds; otherwise `nil` and a warning.
    private static func trustedExpiration(_ value: JSONValue?, warnings: inout [SHLPayloadWarning]) -> Int64? {
        let seconds: Int64
        switch value ?? .null {
        case .null:
            return nil
        case .number(let n):
            guard let whole = Self.wholeNumber(n) else {
                warnings.append(.expirationNotANumber(.number(n)))
                return nil
            }
            seconds = whole
        case let other:
            warnings.append(.expirationNotANumber(other))
            return nil
        }
        if seconds > millisecondsThreshold {
            warnings.append(.expirationInMilliseconds(seconds))
            return nil
        }
        return seconds
    }

    /// A number as a whole count: exact when written without fraction or exponent, else rounded
    /// down; `nil` when it does not fit in 64 bits.
    private static func wholeNumber(_ n: JSONNumber) -> Int64? {
        if n.isInteger { return Int64(n.text) }
        let d = n.doubleValue
        return d.isFinite && abs(d) < 9.0e18 ? Int64(d.rounded(.down)) : nil
    }

    // MARK: Writing

    /// The payload as minified JSON, members in the order of the spec's examples (`url`, `flag`,
    /// `key`, `exp`, `label`, `v`), absent ones left out, escaped as `JSON.stringify` does: the
    /// spec's example link comes out byte for byte.
    public var minifiedJSON: String {
        var members = [JSONMember("url", .string(url))]
        if !flags.isEmpty { members.append(JSONMember("flag", .string(flags.letters))) }
        members.append(JSONMember("key", .string(key.base64url)))
        if let expiration { members.append(JSONMember("exp", .number(JSONNumber(uncheckedText: String(expiration))))) }
        if let label { members.append(JSONMember("label", .string(label))) }
        if let version { members.append(JSONMember("v", .number(JSONNumber(version)))) }
        return JSONWriter.minifiedString(.object(JSONObject(members)))
    }

    // MARK: Expiry

    /// Whether `exp` is before `now`. A link without a trusted `exp` never expires here (the
    /// server still may refuse it).
    public func isExpired(at now: Date) -> Bool {
        guard let expiration else { return false }
        return Double(expiration) < now.timeIntervalSince1970
    }

    /// Throws when `exp` is before `now`.
    ///
    /// - Throws: ``SHLError/expired(expiration:checkedAt:)``.
    public func checkNotExpired(at now: Date) throws(SHLError) {
        if let expiration, isExpired(at: now) { throw .expired(expiration: expiration, checkedAt: now) }
    }
}
