import ByteEncodings
import Foundation

/// What the browser says about a ceremony (`clientDataJSON`, WebAuthn §5.8.1): its type, the
/// challenge, the page's origin and whether it ran in a frame of another origin. Members this
/// server does not know are ignored, as the specification asks.
public struct CollectedClientData: Sendable, Hashable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge, decoded from its base64url text.
    public let challenge: [UInt8]
    /// The origin of the page that called the API.
    public let origin: String
    /// Whether the call came from a frame whose origin differs from its ancestors'.
    public let crossOrigin: Bool
    /// The top-level origin, present only for a cross-origin frame.
    public let topOrigin: String?

    /// The most bytes of client data read (browsers send a few hundred).
    public static let maximumLength = 16 * 1024

    /// Reads client data.
    ///
    /// - Throws: ``WebAuthnError/clientDataInvalid(reason:)`` naming the member that is missing
    ///   or of the wrong type.
    public init(json bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= Self.maximumLength else { throw .clientDataInvalid(reason: "longer than \(Self.maximumLength) bytes") }
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .clientDataInvalid(reason: "no \(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) where !context.codingPath.isEmpty {
            throw .clientDataInvalid(reason: "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .clientDataInvalid(reason: "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is null")
        } catch {
            throw .clientDataInvalid(reason: "not a JSON object")
        }
        do { challenge = try Base64URL.decode(raw.challenge) } catch { throw .clientDataInvalid(reason: "the challenge is not base64url") }
        (type, origin, crossOrigin, topOrigin) = (raw.type, raw.origin, raw.crossOrigin ?? false, raw.topOrigin)
    }

    /// The members read; JSONDecoder takes a boolean only from `true` or `false`.
    private struct Raw: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
    }
}
