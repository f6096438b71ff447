import ByteEncodings
import CBOR
import Crypto
import CryptoExtras
import Foundation
import TestSupport
import Testing
import WebAuthn

/// A software authenticator (ES256 or RS256) against a relying party that requires user
/// verification, then every way an attacker could bend a ceremony: another origin, another
/// RP ID, a replayed or foreign challenge, a counter going back, no user verification, another
/// credential's key, tampered bytes and truncated input.
@Suite struct CeremonyTests {
    static let party = RelyingParty(publicURL: URL(string: "https://health.example:8443/")!)!

    typealias Authenticator = SoftAuthenticator

    static func challenge() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }

    static let keys: [String] = ["ES256", "RS256"]

    static func authenticator(_ name: String) throws -> Authenticator { try SoftAuthenticator.make(name) }

    @Test(arguments: keys)
    func registerThenSignInTwice(_ name: String) throws {
        var device = try Self.authenticator(name)
        let challenge = Self.challenge()
        let r = device.register(challenge, origin: Self.party.origin, rpID: Self.party.id)
        let registration = try Self.party.verifyRegistration(clientDataJSON: r.client, attestationObject: r.object, challenge: challenge)
        #expect(registration.credentialID == device.credentialID)
        #expect(registration.publicKey.algorithm == (name == "ES256" ? -7 : -257))
        #expect(registration.attestationFormat == "none")
        // The key as stored (COSE bytes) is the key read back.
        let stored = try CredentialPublicKey(cose: registration.publicKey.cose)
        var count = registration.signCount
        for _ in 0..<2 {
            let c = Self.challenge()
            let a = try device.assert(c, origin: Self.party.origin, rpID: Self.party.id)
            let result = try Self.party.verifyAssertion(
                credentialID: device.credentialID, clientDataJSON: a.client, authenticatorData: a.data, signature: a.signature, challenge: c,
                registered: registration.credentialID, publicKey: stored, storedSignCount: count)
            #expect(result.signCount == count + 1 && result.userVerified)
            count = result.signCount
        }
    }

    @Test(arguments: keys)
    func everyBentRegistrationIsRefusedForItsReason(_ name: String) throws {
        var device = try Self.authenticator(name)
        let challenge = Self.challenge()
        func refuse(_ error: WebAuthnError, _ r: (client: [UInt8], object: [UInt8]), challenge c: [UInt8] = challenge, party: RelyingParty = Self.party) {
            #expect(throws: error) { try party.verifyRegistration(clientDataJSON: r.client, attestationObject: r.object, challenge: c) }
        }
        refuse(.originMismatch(expected: "https://health.example:8443", found: "https://evil.example"), device.register(challenge, origin: "https://evil.example", rpID: Self.party.id))
        refuse(.originMismatch(expected: "https://health.example:8443", found: "https://health.example"), device.register(challenge, origin: "https://health.example", rpID: Self.party.id))
        refuse(.relyingPartyMismatch, device.register(challenge, origin: Self.party.origin, rpID: "evil.example"))
        refuse(.challengeMismatch, device.register(challenge, origin: Self.party.origin, rpID: Self.party.id), challenge: Self.challenge())
        let wrongType = (Authenticator.clientData("webauthn.get", challenge, origin: Self.party.origin), device.register(challenge, origin: Self.party.origin, rpID: Self.party.id).object)
        refuse(.wrongCeremony(expected: "webauthn.create", found: "webauthn.get"), wrongType)
        let framed = (Authenticator.clientData("webauthn.create", challenge, origin: Self.party.origin, extra: #","topOrigin":"https://evil.example""#), device.register(challenge, origin: Self.party.origin, rpID: Self.party.id).object)
        refuse(.crossOrigin, framed)
        device.flags = 0x01
        refuse(.userNotVerified, device.register(challenge, origin: Self.party.origin, rpID: Self.party.id))
        device.flags = 0x04
        refuse(.userNotPresent, device.register(challenge, origin: Self.party.origin, rpID: Self.party.id))
        device.flags = 0x01 | 0x04 | 0x10
        refuse(.backupStateWithoutEligibility, device.register(challenge, origin: Self.party.origin, rpID: Self.party.id))
    }

    @Test(arguments: keys)
    func everyBentSignInIsRefusedForItsReason(_ name: String) throws {
        var device = try Self.authenticator(name)
        let first = Self.challenge()
        let r = device.register(first, origin: Self.party.origin, rpID: Self.party.id)
        let registration = try Self.party.verifyRegistration(clientDataJSON: r.client, attestationObject: r.object, challenge: first)
        func refuse(
            _ error: WebAuthnError, _ a: (client: [UInt8], data: [UInt8], signature: [UInt8]), challenge c: [UInt8], stored: UInt32 = 0,
            key: CredentialPublicKey = registration.publicKey, credentialID: [UInt8] = registration.credentialID
        ) {
            #expect(throws: error) {
                try Self.party.verifyAssertion(
                    credentialID: credentialID, clientDataJSON: a.client, authenticatorData: a.data, signature: a.signature, challenge: c,
                    registered: registration.credentialID, publicKey: key, storedSignCount: stored)
            }
        }
        var c = Self.challenge()
        refuse(.originMismatch(expected: Self.party.origin, found: "https://evil.example"), try device.assert(c, origin: "https://evil.example", rpID: Self.party.id), challenge: c)
        c = Self.challenge()
        refuse(.relyingPartyMismatch, try device.assert(c, origin: Self.party.origin, rpID: "evil.example"), challenge: c)
        // A replayed sign-in: the challenge it carries is not the one issued now.
        let replayed = try device.assert(c, origin: Self.party.origin, rpID: Self.party.id)
        refuse(.challengeMismatch, replayed, challenge: Self.challenge())
        // The counter must move forward from the stored one.
        c = Self.challenge()
        let behind = try device.assert(c, origin: Self.party.origin, rpID: Self.party.id)
        refuse(.signCountNotIncreased(stored: device.counter + 5, received: device.counter), behind, challenge: c, stored: device.counter + 5)
        refuse(.signCountNotIncreased(stored: device.counter, received: device.counter), behind, challenge: c, stored: device.counter)
        // Another credential's key, and another credential's id.
        let other = try Self.authenticator(name)
        let o = other.register(first, origin: Self.party.origin, rpID: Self.party.id)
        let otherKey = try Self.party.verifyRegistration(clientDataJSON: o.client, attestationObject: o.object, challenge: first).publicKey
        c = Self.challenge()
        refuse(.signatureInvalid, try device.assert(c, origin: Self.party.origin, rpID: Self.party.id), challenge: c, key: otherKey)
        refuse(.credentialMismatch, try device.assert(c, origin: Self.party.origin, rpID: Self.party.id), challenge: c, credentialID: other.credentialID)
        // Flipping UV in signed bytes breaks the signature; without UV the ceremony is refused.
        c = Self.challenge()
        var a = try device.assert(c, origin: Self.party.origin, rpID: Self.party.id)
        a.data[32] &= ~0x04
        refuse(.userNotVerified, a, challenge: c)
        a.data[32] |= 0x04
        a.data[36] ^= 0x01
        refuse(.signatureInvalid, a, challenge: c)
        device.flags = 0x01
        c = Self.challenge()
        refuse(.userNotVerified, try device.assert(c, origin: Self.party.origin, rpID: Self.party.id), challenge: c)
        // A registration's client data is not a sign-in's.
        device.flags = 0x05
        c = Self.challenge()
        var wrong = try device.assert(c, origin: Self.party.origin, rpID: Self.party.id)
        wrong.client = Authenticator.clientData("webauthn.create", c, origin: Self.party.origin)
        refuse(.wrongCeremony(expected: "webauthn.get", found: "webauthn.create"), wrong, challenge: c)
        // Attested data in a sign-in.
        c = Self.challenge()
        var attested = try device.assert(c, origin: Self.party.origin, rpID: Self.party.id)
        attested.data = device.authenticatorData(rpID: Self.party.id, attested: true)
        attested.signature = try device.sign(attested.data + Array(SHA256.hash(data: attested.client)))
        refuse(.attestedCredentialData(expected: false), attested, challenge: c)
    }

    /// Every prefix and every single-byte change of a registration's bytes is either accepted
    /// or refused with a typed error (never a crash, never a hang).
    @Test func truncatedAndFlippedBytesAreTypedErrors() throws {
        let device = try Self.authenticator("ES256")
        let challenge = Self.challenge()
        let r = device.register(challenge, origin: Self.party.origin, rpID: Self.party.id)
        var refused = 0
        for n in 0..<r.object.count {
            do {
                _ = try Self.party.verifyRegistration(clientDataJSON: r.client, attestationObject: Array(r.object.prefix(n)), challenge: challenge)
            } catch { refused += 1 }
        }
        #expect(refused == r.object.count)
        for i in r.object.indices {
            var bent = r.object
            bent[i] ^= 0xFF
            _ = try? Self.party.verifyRegistration(clientDataJSON: r.client, attestationObject: bent, challenge: challenge)
        }
        for n in 0..<r.client.count {
            #expect(throws: WebAuthnError.self) { try CollectedClientData(json: Array(r.client.prefix(n))) }
        }
    }

    @Test func clientDataMembersMustHaveTheirTypes() {
        let cases: [(String, WebAuthnError)] = [
            (#"{"challenge":"AA","origin":"https://a"}"#, .clientDataInvalid(reason: "no type")),
            (#"{"type":"webauthn.get","challenge":1,"origin":"https://a"}"#, .clientDataInvalid(reason: "challenge has the wrong type")),
            (#"{"type":"webauthn.get","challenge":"AA","origin":"https://a","crossOrigin":1}"#, .clientDataInvalid(reason: "crossOrigin has the wrong type")),
            (#"{"type":"webauthn.get","challenge":"A+A","origin":"https://a"}"#, .clientDataInvalid(reason: "the challenge is not base64url")),
            (#"[1]"#, .clientDataInvalid(reason: "not a JSON object")),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try CollectedClientData(json: Array(text.utf8)) }
        }
        #expect(throws: WebAuthnError.clientDataInvalid(reason: "longer than 16384 bytes")) {
            try CollectedClientData(json: [UInt8](repeating: 0x20, count: 16 * 1024 + 1))
        }
    }

    @Test func smallRSAKeysAndForeignCurvesAreRefused() throws {
        let n = [UInt8](repeating: 0xFF, count: 128)  // 1024 bits
        let small = CBORWriter.encode(.map([
            .init(.unsigned(1), .unsigned(3)), .init(.unsigned(3), .integer(-257)), .init(.integer(-1), .bytes(n)), .init(.integer(-2), .bytes([1, 0, 1])),
        ]))
        #expect(throws: WebAuthnError.publicKeyInvalid(reason: "a 1024-bit RSA modulus (2048 to 8192 bits are accepted)")) { try CredentialPublicKey(cose: small) }
        let offCurve = CBORWriter.encode(.map([
            .init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .integer(-7)), .init(.integer(-1), .unsigned(1)),
            .init(.integer(-2), .bytes([UInt8](repeating: 1, count: 32))), .init(.integer(-3), .bytes([UInt8](repeating: 2, count: 32))),
        ]))
        #expect(throws: WebAuthnError.publicKeyInvalid(reason: "the point is not on P-256")) { try CredentialPublicKey(cose: offCurve) }
        let p384 = CBORWriter.encode(.map([.init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .integer(-7)), .init(.integer(-1), .unsigned(2))]))
        #expect(throws: WebAuthnError.publicKeyInvalid(reason: "ES256 needs curve P-256 (1)")) { try CredentialPublicKey(cose: p384) }
    }

    @Test func theRelyingPartyComesFromThePublicURL() throws {
        let a = try #require(RelyingParty(publicURL: URL(string: "https://Health.Example/records")!))
        #expect(a.id == "health.example" && a.origin == "https://health.example" && a.requiresUserVerification)
        let b = try #require(RelyingParty(publicURL: URL(string: "http://localhost:8080")!))
        #expect(b.id == "localhost" && b.origin == "http://localhost:8080")
        // Browsers take no IP address as an RP ID.
        #expect(RelyingParty(publicURL: URL(string: "http://127.0.0.1:8080")!) == nil)
        #expect(RelyingParty(publicURL: URL(string: "http://[::1]:8080")!) == nil)
        #expect(RelyingParty(publicURL: URL(string: "/relative")!) == nil)
    }
}
