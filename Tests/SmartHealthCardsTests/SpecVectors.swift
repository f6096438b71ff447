import ByteEncodings
import CZlib
import Crypto
import Deflate
import FHIR
import Foundation
import JOSE
import SmartHealthCards
import TestSupport
import X509

/// The spec's example issuer, its keys and pinned times.
enum Spec {
    static let issuer = "https://spec.smarthealth.cards/examples/issuer"
    static let legacyIssuer = "https://smarthealth.cards/examples/issuer"
    static let issuerDirectory = FixtureFiles.url("vectors/shc-spec/issuer")
    static let kidCRL = "3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s"
    static let kidX5C = "EBKOr72QQDcTBUuVzAzkfBTGew0ZA16GuWty64nS-sw"
    /// After the spec examples were signed (2023-06-22), before example 03 expired (2024-06-21).
    static let afterSigning = Date(timeIntervalSince1970: 1_688_169_600)  // 2023-07-01
    /// After the HL7 copies were signed (2024-05-07), before their example 03 expired (2025-05-07).
    static let afterHL7Signing = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01
    /// The time dev-tools pins for example 01's certificate chain.
    static let x5cValid = Date(timeIntervalSince1970: 1_653_955_200)  // 2022-05-31

    static func text(_ rel: String) throws -> String { String(decoding: try FixtureFiles.data(rel), as: UTF8.self) }

    static var jwks: JWKSet { get throws { try JWKSet(data: FixtureFiles.data("vectors/shc-spec/issuer/.well-known/jwks.json")) } }
    static var privateJWKS: JWKSet { get throws { try JWKSet(data: FixtureFiles.data("vectors/shc-spec/issuer.jwks.private.json")) } }

    /// Keys answered from the spec's issuer folder, for both the current and the legacy iss.
    static var keySource: any IssuerKeySource {
        KeySourceChain([
            IssuerFilesKeySource(issuer: issuer, directory: issuerDirectory),
            IssuerFilesKeySource(issuer: legacyIssuer, directory: issuerDirectory),
        ])
    }

    static func verifier(trust: TrustPolicy = .open, roots: [Certificate] = [], options: SmartHealthCardVerifier.Options = .init()) -> SmartHealthCardVerifier {
        SmartHealthCardVerifier(keys: keySource, trust: trust, x5c: X5CValidator(roots: roots), options: options)
    }

    /// The signing key of examples 00, 02, 03.
    static var signingKey: P256.Signing.PrivateKey { get throws { try privateJWKS.keys(withID: kidCRL)[0].p256PrivateKey() } }

    /// The inflated payload of a spec example, as a JSON object.
    static func payload(_ n: Int) throws -> JSONObject {
        try JSONReader().read(FixtureFiles.data("vectors/shc-spec/example-0\(n)-c-jws-payload-minified.json")).objectValue!
    }
}


/// Builds cards with deliberate defects, signed with the spec's private key.
struct CardForge {
    enum Compression { case raw, zlib, gzip, none }
    enum SignatureForm { case raw, der, truncated }

    var header: JSONObject = JSONObject([
        "zip": .string("DEF"), "alg": .string("ES256"), "kid": .string(Spec.kidCRL),
    ])
    var payload: JSONObject
    var compression = Compression.raw
    var signatureForm = SignatureForm.raw
    var key: P256.Signing.PrivateKey
    var payloadBytes: [UInt8]?

    init(example: Int = 0) throws {
        payload = try Spec.payload(example)
        key = try Spec.signingKey
    }

    mutating func setVC(_ key: String, _ value: JSONValue?) {
        var vc = payload.object("vc") ?? JSONObject()
        vc[key] = value
        payload["vc"] = .object(vc)
    }

    func jws() throws -> String {
        let json = payloadBytes ?? JSONWriter.minified(.object(payload))
        let body: [UInt8]
        switch compression {
        case .raw: body = Compress.raw(json, level: .best)
        case .none: body = json
        case .zlib:
            var adler = adler32(0, nil, 0)
            json.withUnsafeBufferPointer { adler = adler32(adler, $0.baseAddress, uInt($0.count)) }
            body = [0x78, 0xDA] + Compress.raw(json, level: .best) + withUnsafeBytes(of: UInt32(adler).bigEndian, Array.init)
        case .gzip:
            var crc = crc32(0, nil, 0)
            json.withUnsafeBufferPointer { crc = crc32(crc, $0.baseAddress, uInt($0.count)) }
            body = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF] + Compress.raw(json, level: .best)
                + withUnsafeBytes(of: UInt32(crc).littleEndian, Array.init) + withUnsafeBytes(of: UInt32(json.count).littleEndian, Array.init)
        }
        let input = Base64URL.encode(JSONWriter.minified(.object(header))) + "." + Base64URL.encode(body)
        let signature = try key.signature(for: Array(input.utf8))
        let sig: [UInt8]
        switch signatureForm {
        case .raw: sig = Array(signature.rawRepresentation)
        case .der: sig = Array(signature.derRepresentation)
        case .truncated: sig = Array(signature.rawRepresentation.prefix(63))
        }
        return input + "." + Base64URL.encode(sig)
    }
}
