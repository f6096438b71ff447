import ByteEncodings
import CBOR
import Crypto
import CryptoExtras
import Foundation

/// A software WebAuthn authenticator holding one credential (ES256 or RS256), for tests of the
/// relying party: it makes `none` registrations and signed sign-ins, with its flags and counter
/// open to bending.
public struct SoftAuthenticator: Sendable {
    public enum Key: Sendable { case es256(P256.Signing.PrivateKey), rs256(_RSA.Signing.PrivateKey) }
    public let key: Key
    public let credentialID: [UInt8]
    /// The counter, raised before each sign-in.
    public var counter: UInt32 = 0
    /// The flags of its authenticator data, UP and UV by default (AT is added at registration).
    public var flags: UInt8 = 0x01 | 0x04
    /// The public key as COSE_Key bytes.
    public let cose: [UInt8]

    public init(_ key: Key, credentialID: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }) throws {
        (self.key, self.credentialID) = (key, credentialID)
        cose = try Self.encode(key)
    }

    /// A new ES256 (`"ES256"`) or 2048-bit RS256 (anything else) authenticator.
    public static func make(_ algorithm: String) throws -> SoftAuthenticator {
        algorithm == "ES256" ? try SoftAuthenticator(.es256(P256.Signing.PrivateKey())) : try SoftAuthenticator(.rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
    }

    static func encode(_ key: Key) throws -> [UInt8] {
        switch key {
        case .es256(let k):
            let raw = Array(k.publicKey.rawRepresentation)
            return CBORWriter.encode(.map([
                .init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .integer(-7)), .init(.integer(-1), .unsigned(1)),
                .init(.integer(-2), .bytes(Array(raw[0..<32]))), .init(.integer(-3), .bytes(Array(raw[32..<64]))),
            ]))
        case .rs256(let k):
            let p = try k.publicKey.getKeyPrimitives()
            return CBORWriter.encode(.map([
                .init(.unsigned(1), .unsigned(3)), .init(.unsigned(3), .integer(-257)), .init(.integer(-1), .bytes(Array(p.modulus))),
                .init(.integer(-2), .bytes(Array(p.publicExponent))),
            ]))
        }
    }

    /// Signs bytes as the credential's algorithm does (DER ECDSA, or PKCS #1 v1.5).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch key {
        case .es256(let k): Array(try k.signature(for: message).derRepresentation)
        case .rs256(let k): Array(try k.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    /// Authenticator data for an RP ID; with `attested`, the credential follows.
    public func authenticatorData(rpID: String, attested: Bool) -> [UInt8] {
        var out = Array(SHA256.hash(data: Array(rpID.utf8)))
        out.append(flags | (attested ? 0x40 : 0))
        out += withUnsafeBytes(of: counter.bigEndian, Array.init)
        if attested { out += [UInt8](repeating: 0, count: 16) + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID + cose }
        return out
    }

    /// `clientDataJSON` as a browser writes it.
    public static func clientData(_ type: String, _ challenge: [UInt8], origin: String, extra: String = "") -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":false\#(extra)}"#.utf8)
    }

    /// A `none` registration: client data and attestation object.
    public func register(_ challenge: [UInt8], origin: String, rpID: String) -> (client: [UInt8], object: [UInt8]) {
        let object = CBORWriter.encode(.map([
            .init(.text("fmt"), .text("none")), .init(.text("attStmt"), .map([])),
            .init(.text("authData"), .bytes(authenticatorData(rpID: rpID, attested: true))),
        ]))
        return (Self.clientData("webauthn.create", challenge, origin: origin), object)
    }

    /// A sign-in: the counter moves on first.
    public mutating func assert(_ challenge: [UInt8], origin: String, rpID: String) throws -> (client: [UInt8], data: [UInt8], signature: [UInt8]) {
        counter += 1
        let client = Self.clientData("webauthn.get", challenge, origin: origin)
        let data = authenticatorData(rpID: rpID, attested: false)
        return (client, data, try sign(data + Array(SHA256.hash(data: client))))
    }
}
