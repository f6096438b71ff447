import ByteEncodings
import Crypto
import FHIR
import Foundation
import JOSE

/// A P-256 signing key for issuing cards, with its `kid` (the RFC 7638 thumbprint).
public struct IssuerKey: Sendable {
    /// The P-256 private key; ``privateJWK`` exports it as `d`.
    public let privateKey: P256.Signing.PrivateKey
    /// The `kid`: the RFC 7638 thumbprint of the public key (empty if it could not be computed).
    public let keyID: String

    /// Wraps a private key and computes its `kid` from the public key.
    public init(_ privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        self.keyID = (try? JSONWebKey(p256PublicKey: privateKey.publicKey).thumbprint()) ?? ""
    }

    /// A new random key.
    public static func generate() -> IssuerKey { IssuerKey(P256.Signing.PrivateKey()) }

    /// The public JWK to publish (`kty`, `kid`, `use`, `alg`, `crv`, `x`, `y`).
    public var publicJWK: JSONWebKey {
        let base = JSONWebKey(p256PublicKey: privateKey.publicKey)
        return JSONWebKey(json: JSONObject([
            JSONMember("kty", .string("EC")), JSONMember("kid", .string(keyID)), JSONMember("use", .string("sig")),
            JSONMember("alg", .string("ES256")), JSONMember("crv", .string("P-256")),
            JSONMember("x", base.json["x"]!), JSONMember("y", base.json["y"]!),
        ]))
    }

    /// The private JWK (the public members plus `d`).
    public var privateJWK: JSONWebKey {
        var o = publicJWK.json
        o["d"] = .string(Base64URL.encode(privateKey.rawRepresentation))
        return JSONWebKey(json: o)
    }

    /// Loads a signing key from a private JWKS or JWK (keys whose `use` is not `sig` are skipped;
    /// `kid` picks one when there are several) or from PEM (PKCS#8 or SEC1).
    public static func load(_ data: Data, kid: String? = nil) throws(IssuingError) -> IssuerKey {
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("-----BEGIN") {
            do { return IssuerKey(try P256.Signing.PrivateKey(pemRepresentation: text)) } catch {
                throw .key("the PEM file is not a P-256 private key (\(error))")
            }
        }
        let value: JSONValue
        do { value = try JSONReader().read(data) } catch { throw .key("neither PEM nor JSON: \(error)") }
        let candidates: [JSONWebKey]
        if let keys = value["keys"]?.arrayValue {
            candidates = keys.compactMap { $0.objectValue.map(JSONWebKey.init(json:)) }
        } else if let o = value.objectValue {
            candidates = [JSONWebKey(json: o)]
        } else {
            throw .key("not a JWK or JWKS")
        }
        let signing = candidates.filter { ($0.use == nil || $0.use == "sig") && (kid == nil || $0.keyID == kid) }
        guard !signing.isEmpty else { throw .key(kid.map { "no signing key with kid \($0)" } ?? "no key with use \"sig\"") }
        guard signing.count == 1 || kid != nil else {
            throw .key("\(signing.count) signing keys; choose one with --kid (\(signing.compactMap(\.keyID).joined(separator: ", ")))")
        }
        let jwk = signing[0]
        let privateKey: P256.Signing.PrivateKey
        do { privateKey = try jwk.p256PrivateKey() } catch { throw .key(error.description) }
        let key = IssuerKey(privateKey)
        if let stated = jwk.keyID, stated != key.keyID { throw .key("kid \(stated) is not the key's thumbprint \(key.keyID)") }
        return key
    }
}
