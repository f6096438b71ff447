import Foundation

/// The members of an EC public JSON Web Key (RFC 7517 §4, RFC 7518 §6.2.1).
struct JSONWebKey: Decodable {
    var kty: String?
    var crv: String?
    var x: String?
    var y: String?
    var d: String?

    /// Decoded, validated coordinates of a P-256 public key.
    struct Coordinates {
        var x: [UInt8]
        var y: [UInt8]
    }

    /// Parses JWK JSON and returns the P-256 coordinates.
    static func decode(_ json: Data) throws(KeyError) -> Coordinates {
        let jwk: JSONWebKey
        do {
            jwk = try JSONDecoder().decode(JSONWebKey.self, from: json)
        } catch {
            throw .invalidJWK(.notJSON)
        }
        guard jwk.kty == "EC" else { throw .invalidJWK(.unsupportedKeyType) }
        switch jwk.crv {
        case "P-256": break
        case "P-384": throw .unsupportedCurve(CMSObjectIdentifier.p384)
        case "P-521": throw .unsupportedCurve(CMSObjectIdentifier.p521)
        default: throw .invalidJWK(.unsupportedCurveName)
        }
        guard jwk.d == nil else { throw .invalidJWK(.containsPrivateKey) }
        guard let xText = jwk.x, let yText = jwk.y,
            let x = Base64.decodeURL(xText), let y = Base64.decodeURL(yText),
            x.count == 32, y.count == 32
        else {
            throw .invalidJWK(.invalidCoordinate)
        }
        return Coordinates(x: x, y: y)
    }
}
