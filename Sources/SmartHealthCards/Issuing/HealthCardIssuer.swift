import ByteEncodings
import Crypto
import Deflate
import FHIR
import Foundation
import JOSE

/// A card as issued: its JWS and what it was made from.
public struct IssuedCard: Sendable {
    /// The compact JWS.
    public let jws: String
    /// The minified payload JSON that was compressed and signed.
    public let payload: [UInt8]
    /// What the minimizer could not minimize.
    public let warnings: [BundleMinimizer.Warning]

    /// The `.smart-health-card` file: `{"verifiableCredential":["<jws>"]}`.
    public var fileContents: Data {
        Data(JSONWriter.minified(.object(JSONObject([JSONMember("verifiableCredential", .array([.string(jws)]))]))))
    }

    /// The `shc:/` numeric QR text; never chunked, so a card too big for one QR code is an error.
    public func qrText() throws(IssuingError) -> String {
        let n = jws.utf8.count
        guard n <= HealthCardQRText.maxSingleJWSLength else { throw .tooLargeForQR(jwsLength: n, limit: HealthCardQRText.maxSingleJWSLength) }
        return HealthCardQRText.encode(jws: jws)
    }
}

/// Issues SMART Health Cards: minimized bundle, payload, raw DEFLATE, ES256 (r‖s), `kid` = thumbprint.
public struct HealthCardIssuer: Sendable {
    /// The issuer URL (`iss`).
    public let issuer: String
    /// The key every card is signed with (ES256); its thumbprint is each card's `kid`.
    public let key: IssuerKey
    /// Minimizes each bundle before it goes into a payload.
    public let minimizer: BundleMinimizer

    /// Makes an issuer; `iss` must be https and must not end with `/`.
    public init(issuer: String, key: IssuerKey, minimizer: BundleMinimizer = BundleMinimizer()) throws(IssuingError) {
        guard issuer.hasPrefix("https://"), !issuer.hasSuffix("/"), issuer.count > 8, URL(string: issuer)?.host != nil else {
            throw .invalidIssuer(issuer)
        }
        self.issuer = issuer
        self.key = key
        self.minimizer = minimizer
    }

    /// Issues a card for a bundle.
    ///
    /// - Parameters:
    ///   - types: extra `vc.type` URIs (`#health-card` is always first).
    ///   - notBefore: the issue time (`nbf`), kept to the millisecond like the spec's examples.
    ///   - expiration: `exp`, when the card should expire.
    ///   - revocationID: `vc.rid` (see ``RevocationID``).
    public func issue(bundle: JSONObject, types: [String] = [], notBefore: Date, expiration: Date? = nil, revocationID: String? = nil, fhirVersion: String = "4.0.1") throws(IssuingError) -> IssuedCard {
        let (minimized, warnings) = try minimizer.minimize(bundle)
        var typeList = [HealthCardPayload.healthCardType]
        for t in types where !typeList.contains(t) { typeList.append(t) }
        var vc: [JSONMember] = [
            JSONMember("type", .array(typeList.map(JSONValue.string))),
            JSONMember("credentialSubject", .object(JSONObject([
                JSONMember("fhirVersion", .string(fhirVersion)),
                JSONMember("fhirBundle", .object(minimized)),
            ]))),
        ]
        if let rid = revocationID {
            guard !rid.isEmpty, rid.utf8.count <= 24, rid.utf8.allSatisfy(Base64URL.isAlphabetByte) else { throw .revocation("\(rid) is not 1–24 base64url characters") }
            vc.append(JSONMember("rid", .string(rid)))
        }
        var claims: [JSONMember] = [JSONMember("iss", .string(issuer)), JSONMember("nbf", .number(Self.numericDate(notBefore)))]
        if let expiration {
            guard expiration > notBefore else { throw .revocation("exp must be after nbf") }
            claims.append(JSONMember("exp", .number(Self.numericDate(expiration))))
        }
        claims.append(JSONMember("vc", .object(JSONObject(vc))))
        let payload = JSONWriter.minified(.object(JSONObject(claims)))
        let header = JSONWriter.minified(.object(JSONObject([
            JSONMember("zip", .string("DEF")), JSONMember("alg", .string("ES256")), JSONMember("kid", .string(key.keyID)),
        ])))
        let input = Base64URL.encode(header) + "." + Base64URL.encode(Compress.raw(payload, level: .best))
        let signature: [UInt8]
        do { signature = try ES256.sign(Array(input.utf8), key: key.privateKey) } catch { throw .key("signing failed: \(error)") }
        return IssuedCard(jws: input + "." + Base64URL.encode(signature), payload: payload, warnings: warnings)
    }

    /// Seconds since 1970 with millisecond precision and no trailing zeros, e.g. `1687450764.656`.
    static func numericDate(_ d: Date) -> JSONNumber {
        let ms = (d.timeIntervalSince1970 * 1000).rounded()
        let whole = Int(ms / 1000)
        let frac = Int(ms) - whole * 1000
        if frac == 0 { return JSONNumber(whole) }
        var f = String(format: "%03d", frac)
        while f.hasSuffix("0") { f.removeLast() }
        return JSONNumber(uncheckedText: "\(whole).\(f)")
    }
}

/// The spec's recommended revocation id: base64url of the first 64 bits of
/// HMAC-SHA-256(key = UTF-8(secret + kid), message = UTF-8(user id)).
public enum RevocationID {
    /// Computes a rid; `secret` is the base64url secret *text*, as the spec's generator uses it.
    public static func compute(secret: String, keyID: String, userID: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(userID.utf8), using: SymmetricKey(data: Data((secret + keyID).utf8)))
        return Base64URL.encode(Array(mac).prefix(8))
    }
}
