import ByteEncodings
import Crypto
import CryptoExtras
import Foundation

/// Builds compact JWS client assertions for the tests, signed by real keys.
enum TestJWT {
    static let clientID = "app-123"
    static let tokenEndpoint = "http://127.0.0.1:8080/token"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A claims set; pass nil to leave a claim out, and `extra` for members added as JSON text.
    static func claims(
        iss: String? = clientID, sub: String? = clientID, aud: String? = #""\#(tokenEndpoint)""#,
        exp: Double? = now.timeIntervalSince1970 + 240, iat: Double? = now.timeIntervalSince1970, jti: String? = "jti-1", extra: [String] = []
    ) -> String {
        var members: [String] = []
        if let iss { members.append(#""iss":"\#(iss)""#) }
        if let sub { members.append(#""sub":"\#(sub)""#) }
        if let aud { members.append(#""aud":\#(aud)"#) }
        if let exp { members.append(#""exp":\#(number(exp))"#) }
        if let iat { members.append(#""iat":\#(number(iat))"#) }
        if let jti { members.append(#""jti":"\#(jti)""#) }
        members += extra
        return "{" + members.joined(separator: ",") + "}"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// `base64url(header).base64url(claims)`.
    static func signingInput(header: String, claims: String) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    }

    /// A JWS signed by `sign`, which gets the signing input bytes.
    static func compact(header: String, claims: String, sign: ([UInt8]) throws -> [UInt8]) rethrows -> String {
        let input = signingInput(header: header, claims: claims)
        return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
    }

    /// An ES384 assertion (raw r‖s signature).
    static func es384(_ key: P384.Signing.PrivateKey, kid: String? = "ec-1", header: String? = nil, claims: String = claims()) throws -> String {
        let h = header ?? #"{"alg":"ES384","typ":"JWT""# + (kid.map { #","kid":"\#($0)""# } ?? "") + "}"
        return try compact(header: h, claims: claims) { Array(try key.signature(for: $0).rawRepresentation) }
    }

    /// An RS384 assertion (PKCS #1 v1.5, SHA-384).
    static func rs384(_ key: _RSA.Signing.PrivateKey, kid: String? = "rsa-1", header: String? = nil, claims: String = claims()) throws -> String {
        let h = header ?? #"{"alg":"RS384","typ":"JWT""# + (kid.map { #","kid":"\#($0)""# } ?? "") + "}"
        return try compact(header: h, claims: claims) {
            Array(try key.signature(for: SHA384.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    /// The public JWK of a P-384 key.
    static func jwk(_ key: P384.Signing.PublicKey, kid: String? = "ec-1", extra: String = "") -> String {
        let raw = Array(key.rawRepresentation)
        return #"{"kty":"EC","crv":"P-384","x":"\#(Base64URL.encode(raw[0..<48]))","y":"\#(Base64URL.encode(raw[48..<96]))""#
            + (kid.map { #","kid":"\#($0)""# } ?? "") + extra + "}"
    }

    /// The public JWK of an RSA key.
    static func jwk(_ key: _RSA.Signing.PublicKey, kid: String? = "rsa-1", extra: String = "") throws -> String {
        let p = try key.getKeyPrimitives()
        return #"{"kty":"RSA","n":"\#(Base64URL.encode(p.modulus))","e":"\#(Base64URL.encode(p.publicExponent))""#
            + (kid.map { #","kid":"\#($0)""# } ?? "") + extra + "}"
    }

    /// `{"keys":[…]}`.
    static func jwks(_ keys: String...) -> String { #"{"keys":["# + keys.joined(separator: ",") + "]}" }
}

/// One-time keys for the suites (RSA generation is slow enough to share).
enum TestKeys {
    static let ec = P384.Signing.PrivateKey()
    static let otherEC = P384.Signing.PrivateKey()
    static let rsa: _RSA.Signing.PrivateKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherRSA: _RSA.Signing.PrivateKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
}

/// DER ↔ raw ECDSA signatures, written here so the interop tests do not lean on swift-crypto.
enum ECDSADER {
    /// r‖s (each `size` bytes) from a DER `ECDSA-Sig-Value`.
    static func raw(fromDER der: [UInt8], size: Int) -> [UInt8]? {
        var i = 0
        func length() -> Int? {
            guard i < der.count else { return nil }
            let first = der[i]; i += 1
            if first < 0x80 { return Int(first) }
            let n = Int(first & 0x7F)
            guard n <= 2, i + n <= der.count else { return nil }
            var value = 0
            for _ in 0..<n { value = value << 8 | Int(der[i]); i += 1 }
            return value
        }
        func integer() -> [UInt8]? {
            guard i < der.count, der[i] == 0x02 else { return nil }
            i += 1
            guard let n = length(), i + n <= der.count else { return nil }
            let bytes = Array(der[i..<(i + n)].drop(while: { $0 == 0 }))
            i += n
            guard bytes.count <= size else { return nil }
            return [UInt8](repeating: 0, count: size - bytes.count) + bytes
        }
        guard der.first == 0x30 else { return nil }
        i = 1
        guard length() != nil, let r = integer(), let s = integer() else { return nil }
        return r + s
    }

    /// A DER `ECDSA-Sig-Value` from r‖s.
    static func der(fromRaw raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var v = Array(bytes.drop(while: { $0 == 0 }))
            if v.isEmpty { v = [0] }
            if v[0] & 0x80 != 0 { v.insert(0, at: 0) }
            return [0x02, UInt8(v.count)] + v
        }
        let half = raw.count / 2
        let body = integer(raw[0..<half]) + integer(raw[half...])
        return [0x30] + (body.count < 0x80 ? [UInt8(body.count)] : [0x81, UInt8(body.count)]) + body
    }
}
