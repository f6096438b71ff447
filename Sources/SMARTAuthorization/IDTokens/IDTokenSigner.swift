import ByteEncodings
import Crypto
import FHIR
import Foundation
import JOSE

/// Signs OpenID Connect id tokens (compact JWS, ES256) with a P-256 key derived from a secret
/// the server keeps, so the key, its `kid` and the published JWKS survive a restart without a
/// key file of their own.
///
/// The key is HKDF-SHA256 of the seed with the fixed ``derivationLabel`` as info (a counter
/// byte appended and incremented in the astronomically unlikely case the output is not a
/// valid scalar). The `kid` is the key's RFC 7638 thumbprint.
public struct IDTokenSigner: Sendable {
    /// The shortest seed accepted, in bytes.
    public static let minimumSeedBytes = 32
    /// The HKDF info that ties derived keys to this use; changing it changes every key.
    public static let derivationLabel = "HealthRecords SMART id_token ES256 signing key v1"

    private let privateKey: P256.Signing.PrivateKey
    /// The `kid` of the key: its RFC 7638 JWK thumbprint.
    public let keyID: String

    /// Derives the signing key from `seed` (at least ``minimumSeedBytes`` of secret).
    public init(seed: Data) throws(IDTokenError) {
        guard seed.count >= Self.minimumSeedBytes else { throw .seedTooShort(bytes: seed.count) }
        let material = SymmetricKey(data: seed)
        var derived: P256.Signing.PrivateKey?
        for counter in UInt8.min...UInt8.max {
            let info = Data(Self.derivationLabel.utf8) + (counter == 0 ? Data() : Data([counter]))
            let bytes = HKDF<SHA256>.deriveKey(inputKeyMaterial: material, info: info, outputByteCount: 32)
            if let key = bytes.withUnsafeBytes({ try? P256.Signing.PrivateKey(rawRepresentation: $0) }) {
                derived = key
                break
            }
        }
        guard let derived else { throw .keyDerivationFailed }
        privateKey = derived
        do { keyID = try JSONWebKey(p256PublicKey: derived.publicKey).thumbprint() } catch { throw .signingFailed(error.description) }
    }

    /// The public key id tokens verify under.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// The public JWK: `crv`, `kty`, `x`, `y`, then `kid`, `use` (`sig`) and `alg` (`ES256`).
    public var publicJWK: JSONWebKey {
        var json = JSONWebKey(p256PublicKey: publicKey).json
        json.members.append(JSONMember("kid", .string(keyID)))
        json.members.append(JSONMember("use", .string("sig")))
        json.members.append(JSONMember("alg", .string("ES256")))
        return JSONWebKey(json: json)
    }

    /// The JWKS served at `/.well-known/jwks.json`: `{"keys":[…]}` with the public key only.
    public var jwksJSON: String {
        JSONWriter.minifiedString(JWKSet(keys: [publicJWK]).json)
    }

    /// Signs an id token: header `{"alg":"ES256","typ":"JWT","kid":…}`, the claims in the order
    /// `iss`, `sub`, `aud`, `exp`, `iat`, then `fhirUser` and `nonce` when given.
    public func sign(_ claims: IDTokenClaims) throws(IDTokenError) -> String {
        let header = JSONValue.object(JSONObject([
            JSONMember("alg", .string("ES256")), JSONMember("typ", .string("JWT")), JSONMember("kid", .string(keyID)),
        ]))
        var members = [
            JSONMember("iss", .string(claims.issuer)),
            JSONMember("sub", .string(claims.subject)),
            JSONMember("aud", .string(claims.audience)),
            JSONMember("exp", .number(JSONNumber(Self.seconds(claims.expiresAt)))),
            JSONMember("iat", .number(JSONNumber(Self.seconds(claims.issuedAt)))),
        ]
        if let fhirUser = claims.fhirUser { members.append(JSONMember("fhirUser", .string(fhirUser))) }
        if let nonce = claims.nonce { members.append(JSONMember("nonce", .string(nonce))) }
        let signingInput = Base64URL.encode(JSONWriter.minified(header)) + "." + Base64URL.encode(JSONWriter.minified(.object(JSONObject(members))))
        let signature: [UInt8]
        do { signature = try ES256.sign(Array(signingInput.utf8), key: privateKey) } catch { throw .signingFailed("\(error)") }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Whole seconds since 1970, rounded down.
    private static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }
}
