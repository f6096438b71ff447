import Foundation

/// Why a `private_key_jwt` client assertion (RFC 7523) is refused: the HTTP layer answers each
/// with `invalid_client`, and may log the case.
public enum ClientAssertionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The assertion is longer than ``ClientAssertion/maximumLength``.
    case tooLarge(bytes: Int)
    /// Not three base64url parts separated by dots: what is wrong.
    case notCompactJWS(String)
    /// The header or the claims are not a JSON object: which part, and why.
    case notJSONObject(part: String, reason: String)
    /// A member appears twice in the header or the claims (readers disagree on which wins).
    case duplicateMember(part: String, member: String)
    /// `alg` is missing or not ES384 or RS384 (`none`, `HS256`, `ES256`, `RS256`… are refused).
    case unsupportedAlgorithm(String?)
    /// `typ` is present and not `JWT`.
    case unsupportedType(String)
    /// The header has `crit`: no JWS extension is understood here.
    case criticalHeader
    /// No registered key matches: the `kid` asked for (nil when the header named none), and the
    /// algorithm.
    case unknownKey(kid: String?, algorithm: ClientAssertionAlgorithm)
    /// The key named by `kid` is not a key for the header's `alg` (an RSA key for ES384…).
    case keyAlgorithmMismatch(kid: String, algorithm: ClientAssertionAlgorithm)
    /// The signature does not verify under the selected key(s).
    case badSignature
    /// A claim has the wrong JSON type or an impossible value: its name and what is wrong.
    case invalidClaim(name: String, reason: String)
    /// `iss` is not the client id.
    case wrongIssuer(expected: String, found: String?)
    /// `sub` is not the client id (RFC 7523 §3 and SMART require `iss` == `sub` == client id).
    case wrongSubject(expected: String, found: String?)
    /// `aud` does not name the token endpoint: the expected value and the audiences found.
    case wrongAudience(expected: String, found: [String])
    /// `exp` is absent.
    case missingExpiry
    /// `exp` is not after now.
    case expired(exp: Date, now: Date)
    /// `exp` is more than ``ClientAssertion/maximumLifetime`` after now.
    case expiryTooFar(exp: Date, latest: Date)
    /// `nbf` is later than now plus ``ClientAssertion/allowedClockSkew``.
    case notYetValid(nbf: Date, now: Date)
    /// `iat` is later than now plus ``ClientAssertion/allowedClockSkew``.
    case issuedInFuture(iat: Date, now: Date)
    /// `jti` is absent or empty.
    case missingJTI
    /// `jti` is longer than ``ClientAssertion/maximumJTILength`` bytes.
    case jtiTooLong(bytes: Int)

    public var description: String {
        switch self {
        case .tooLarge(let n): return "the client assertion is \(n) bytes, more than \(ClientAssertion.maximumLength)"
        case .notCompactJWS(let m): return "the client assertion is not a compact JWS: \(m)"
        case .notJSONObject(let part, let reason): return "the client assertion's \(part) is not a JSON object: \(reason)"
        case .duplicateMember(let part, let m): return "the client assertion's \(part) has \(m.debugDescription) twice"
        case .unsupportedAlgorithm(let alg): return "alg \(alg.map { $0.debugDescription } ?? "(missing)") is not ES384 or RS384"
        case .unsupportedType(let t): return "typ \(t.debugDescription) is not JWT"
        case .criticalHeader: return "the header has crit; no JWS extension is supported"
        case .unknownKey(let kid, let alg):
            return "no registered \(alg.rawValue) key" + (kid.map { " has kid \($0.debugDescription)" } ?? " verifies it")
        case .keyAlgorithmMismatch(let kid, let alg): return "key \(kid.debugDescription) is not a key for \(alg.rawValue)"
        case .badSignature: return "the signature does not verify"
        case .invalidClaim(let name, let reason): return "claim \(name): \(reason)"
        case .wrongIssuer(let e, let f): return "iss is \(f.map { $0.debugDescription } ?? "missing"), not the client id \(e.debugDescription)"
        case .wrongSubject(let e, let f): return "sub is \(f.map { $0.debugDescription } ?? "missing"), not the client id \(e.debugDescription)"
        case .wrongAudience(let e, let f): return "aud \(f) does not name the token endpoint \(e)"
        case .missingExpiry: return "exp is missing"
        case .expired(let exp, let now): return "expired at \(exp), now is \(now)"
        case .expiryTooFar(let exp, let latest): return "exp \(exp) is later than \(latest) (at most 5 minutes ahead)"
        case .notYetValid(let nbf, let now): return "not valid before \(nbf), now is \(now)"
        case .issuedInFuture(let iat, let now): return "issued at \(iat), after now (\(now))"
        case .missingJTI: return "jti is missing or empty"
        case .jtiTooLong(let n): return "jti is \(n) bytes, more than \(ClientAssertion.maximumJTILength)"
        }
    }
}
