import FHIR
import Foundation

/// A token endpoint's answer (RFC 6749 §5.1 plus SMART's `patient`, `id_token`).
///
/// Read strictly enough that a connection is never stored with a token the FHIR server will
/// refuse (no token, not a bearer token), and leniently where servers differ harmlessly
/// (`expires_in` as a string, members this client does not use). `Codable` with the wire
/// names, so a stored connection round-trips through JSON unchanged.
public struct TokenResponse: Sendable, Hashable, Codable {
    /// The bearer token for FHIR requests.
    public var accessToken: String
    /// `Bearer` (any case; kept as sent).
    public var tokenType: String
    /// Seconds the access token lives, when the server says.
    public var expiresIn: Int?
    /// The refresh token, when `offline_access` or `online_access` was granted.
    public var refreshToken: String?
    /// The scopes granted, which may be fewer than those asked for.
    public var scope: String?
    /// The patient in context (SMART `launch/patient`).
    public var patient: String?
    /// The OpenID Connect id token, when `openid` was asked for.
    public var idToken: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
        case patient
        case idToken = "id_token"
    }

    /// A response from its parts, for tokens held without a token request (and tests).
    public init(
        accessToken: String, tokenType: String = "Bearer", expiresIn: Int? = nil, refreshToken: String? = nil, scope: String? = nil,
        patient: String? = nil, idToken: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
        self.patient = patient
        self.idToken = idToken
    }

    /// Reads a 200 answer's JSON; missing access_token → .malformedTokenResponse(reason).
    ///
    /// `token_type` is required (RFC 6749 §5.1) and must be `bearer` in any case, else
    /// `.unsupportedTokenType`. `expires_in` may be a whole number or a string of digits
    /// (both are seen in the wild); a negative or fractional one is malformed. An empty
    /// `refresh_token`, `scope`, `patient` or `id_token` reads as absent.
    public init(data: Data) throws(SMARTClientError) {
        let object: JSONObject
        do { object = try ClientJSON.object(data) } catch {
            throw .malformedTokenResponse(error.description)
        }
        guard let token = try Self.string(object, "access_token"), !token.isEmpty else {
            throw .malformedTokenResponse("no access_token")
        }
        guard let type = try Self.string(object, "token_type") else { throw .malformedTokenResponse("no token_type") }
        guard type.lowercased() == "bearer" else { throw .unsupportedTokenType(type) }
        accessToken = token
        tokenType = type
        expiresIn = try Self.seconds(object["expires_in"])
        refreshToken = try Self.string(object, "refresh_token").flatMap { $0.isEmpty ? nil : $0 }
        scope = try Self.string(object, "scope").flatMap { $0.isEmpty ? nil : $0 }
        patient = try Self.string(object, "patient").flatMap { $0.isEmpty ? nil : $0 }
        idToken = try Self.string(object, "id_token").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// When the access token expires, counted from when the response was received; nil
    /// when the server did not say.
    public func expiry(receivedAt: Date) -> Date? {
        expiresIn.map { receivedAt.addingTimeInterval(TimeInterval($0)) }
    }

    private static func string(_ object: JSONObject, _ member: String) throws(SMARTClientError) -> String? {
        guard let value = object[member], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .malformedTokenResponse("\(member) is not a string") }
        return text
    }

    private static func seconds(_ value: JSONValue?) throws(SMARTClientError) -> Int? {
        switch value {
        case nil, .null?: return nil
        case .number(let number)?:
            guard number.isInteger, let seconds = number.intValue, seconds >= 0 else {
                throw .malformedTokenResponse("expires_in \(number) is not a whole number of seconds")
            }
            return seconds
        case .string(let text)?:
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int(text) else {
                throw .malformedTokenResponse("expires_in \(text.debugDescription) is not a whole number of seconds")
            }
            return seconds
        default:
            throw .malformedTokenResponse("expires_in is not a number")
        }
    }
}
