import Crypto
import CryptoExtras
import FHIR
import Foundation

/// The check of a `private_key_jwt` client assertion (RFC 7523 §2.2 and §3), as SMART App
/// Launch 2's asymmetric client authentication uses it at the token endpoint.
public enum ClientAssertion {
    /// The longest assertion read, in bytes.
    public static let maximumLength = 16 * 1024
    /// How far ahead `exp` may be: SMART says no more than five minutes.
    public static let maximumLifetime: TimeInterval = 300
    /// How far ahead of the server's clock `iat` and `nbf` may be.
    public static let allowedClockSkew: TimeInterval = 60
    /// The longest `jti` accepted, in bytes (the store keeps it until `exp`).
    public static let maximumJTILength = 255
    /// The `client_assertion_type` that goes with a JWT client assertion (RFC 7523 §2.2).
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The client id an assertion claims to come from (its `iss`, which must equal `sub`),
    /// read without checking anything else: for finding the client's keys when the request
    /// has no `client_id` (RFC 7523 §3 lets it leave it out). Trust nothing until
    /// ``verify(_:clientID:tokenEndpoint:keys:now:)`` passes with this id.
    public static func claimedClientID(_ jwt: String) throws(ClientAssertionError) -> String {
        guard jwt.utf8.count <= maximumLength else { throw .tooLarge(bytes: jwt.utf8.count) }
        let claims = try CompactJWS(jwt).claims
        guard let iss = try string(claims, "iss"), !iss.isEmpty else { throw .invalidClaim(name: "iss", reason: "missing or empty") }
        let sub = try string(claims, "sub")
        guard sub == iss else { throw .wrongSubject(expected: iss, found: sub) }
        return iss
    }

    /// The `kid` an assertion's header names, read without checking anything else: for telling
    /// whether a cached key set lacks it. `nil` when there is none or the assertion is unreadable.
    public static func claimedKeyID(_ jwt: String) -> String? {
        guard jwt.utf8.count <= maximumLength, let jws = try? CompactJWS(jwt) else { return nil }
        return jws.header["kid"]?.stringValue
    }

    /// Verifies a client assertion and returns its `jti` and `exp` for the replay check.
    ///
    /// Checks, in order: the compact JWS form (strict base64url, JSON objects, no member
    /// twice); `alg` is ES384 or RS384 (`none`, `HS*`, `ES256`, `RS256` and anything else are
    /// refused before any key is touched); `typ`, when present, is `JWT`; no `crit`; the key is
    /// the one `kid` names, or, without `kid`, any registered key for the algorithm (keys in
    /// the header — `jwk`, `jku`, `x5u`, `x5c` — are never used); the signature (ES384: 96-byte
    /// r‖s; RS384: PKCS #1 v1.5 with SHA-384); `iss` and `sub` both equal `clientID`; `aud` is
    /// `tokenEndpoint` or an array containing it; `exp` is after `now` and at most
    /// ``maximumLifetime`` after it; `nbf` and `iat`, when present, are no later than `now`
    /// plus ``allowedClockSkew``; `jti` is a non-empty string of at most ``maximumJTILength`` bytes.
    ///
    /// - Parameters:
    ///   - jwt: the `client_assertion` form parameter.
    ///   - clientID: the client the request authenticates as.
    ///   - tokenEndpoint: the token endpoint's URL, exactly as published.
    ///   - keys: the client's registered keys.
    ///   - now: the current time.
    public static func verify(_ jwt: String, clientID: String, tokenEndpoint: String, keys: ClientKeySet, now: Date) throws(ClientAssertionError) -> VerifiedAssertion {
        guard jwt.utf8.count <= maximumLength else { throw .tooLarge(bytes: jwt.utf8.count) }
        let jws = try CompactJWS(jwt)
        let header = jws.header

        guard let algText = header["alg"]?.stringValue, let algorithm = ClientAssertionAlgorithm(rawValue: algText) else {
            throw .unsupportedAlgorithm(header["alg"]?.stringValue ?? header["alg"].map { JSONWriter.minifiedString($0) })
        }
        if let typ = header["typ"] {
            guard let text = typ.stringValue else { throw .unsupportedType(JSONWriter.minifiedString(typ)) }
            guard text == "JWT" else { throw .unsupportedType(text) }
        }
        guard header["crit"] == nil else { throw .criticalHeader }
        var kid: String?
        if let value = header["kid"] {
            guard let text = value.stringValue else { throw .notJSONObject(part: "header", reason: "kid is not a string") }
            kid = text
        }

        let candidates = try keys.candidates(kid: kid, algorithm: algorithm)
        guard let signer = candidates.first(where: { isValid(jws.signature, for: jws.signingInput, under: $0.material) }) else {
            throw .badSignature
        }

        let claims = jws.claims
        let iss = try string(claims, "iss")
        let sub = try string(claims, "sub")
        guard iss == clientID else { throw .wrongIssuer(expected: clientID, found: iss) }
        guard sub == clientID else { throw .wrongSubject(expected: clientID, found: sub) }
        let audienceList = try audiences(claims)
        guard audienceList.contains(tokenEndpoint) else { throw .wrongAudience(expected: tokenEndpoint, found: audienceList) }

        guard let exp = try date(claims, "exp") else { throw .missingExpiry }
        guard exp > now else { throw .expired(exp: exp, now: now) }
        let latest = now.addingTimeInterval(maximumLifetime)
        guard exp <= latest else { throw .expiryTooFar(exp: exp, latest: latest) }
        if let nbf = try date(claims, "nbf"), nbf > now.addingTimeInterval(allowedClockSkew) { throw .notYetValid(nbf: nbf, now: now) }
        if let iat = try date(claims, "iat"), iat > now.addingTimeInterval(allowedClockSkew) { throw .issuedInFuture(iat: iat, now: now) }

        guard let jti = try string(claims, "jti"), !jti.isEmpty else { throw .missingJTI }
        guard jti.utf8.count <= maximumJTILength else { throw .jtiTooLong(bytes: jti.utf8.count) }
        return VerifiedAssertion(jti: jti, exp: exp, algorithm: algorithm, keyID: signer.keyID)
    }

    /// Whether `signature` is valid for `message` under a key.
    private static func isValid(_ signature: [UInt8], for message: [UInt8], under key: ClientKeySet.Material) -> Bool {
        switch key {
        case .p384(let publicKey):
            guard signature.count == 96, let sig = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return publicKey.isValidSignature(sig, for: message)
        case .rsa(let publicKey):
            return publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA384.hash(data: message), padding: .insecurePKCS1v1_5
            )
        }
    }

    /// A string claim; nil when absent, an error when of another type.
    private static func string(_ claims: JSONObject, _ name: String) throws(ClientAssertionError) -> String? {
        guard let value = claims[name] else { return nil }
        guard let text = value.stringValue else { throw .invalidClaim(name: name, reason: "not a string") }
        return text
    }

    /// A NumericDate claim (seconds since 1970, possibly fractional); nil when absent.
    private static func date(_ claims: JSONObject, _ name: String) throws(ClientAssertionError) -> Date? {
        guard let value = claims[name] else { return nil }
        guard let number = value.numberValue else { throw .invalidClaim(name: name, reason: "not a number") }
        let seconds = number.doubleValue
        guard seconds.isFinite, seconds >= 0, seconds < 1e11 else { throw .invalidClaim(name: name, reason: "\(number) is not a date") }
        return Date(timeIntervalSince1970: seconds)
    }

    /// `aud` as a list: one string, or an array of strings.
    private static func audiences(_ claims: JSONObject) throws(ClientAssertionError) -> [String] {
        switch claims["aud"] {
        case nil: return []
        case .string(let one)?: return [one]
        case .array(let many)?:
            var result: [String] = []
            for value in many {
                guard let text = value.stringValue else { throw .invalidClaim(name: "aud", reason: "an element is not a string") }
                result.append(text)
            }
            return result
        default: throw .invalidClaim(name: "aud", reason: "not a string or an array of strings")
        }
    }
}
