import ByteEncodings
import Foundation
import TestSupport
import Testing
import WebAuthn

/// The Web Authentication Level 3 specification's own test vectors (Tests/Fixtures/webauthn):
/// every registration is accepted or refused for the reason its example calls for, and every
/// sign-in made with an ES256 or RS256 credential verifies with the key its registration made.
@Suite struct W3CVectorTests {
    struct Ceremony: Decodable {
        let challenge: String
        let clientDataJSON: String
        let attestationObject: String?
        let authenticatorData: String?
        let signature: String?
    }

    struct Vector: Decodable {
        let title: String
        let registration: Ceremony
        let authentication: Ceremony
    }

    static let vectors: [String: Vector] = {
        guard let data = try? FixtureFiles.data("webauthn/w3c-test-vectors.json"),
            let decoded = try? JSONDecoder().decode([String: Vector].self, from: data)
        else { return [:] }
        return decoded
    }()

    /// The examples' relying party. The examples set UV at random, so it is not required here;
    /// the suites below require it.
    static let party = RelyingParty(id: "example.org", origin: "https://example.org", requiresUserVerification: false)

    static func bytes(_ hex: String?) throws -> [UInt8] { try Hex.decode(hex ?? "") }

    /// What each example's registration comes to under this server's policy.
    static let expected: [String: WebAuthnError?] = [
        "none-es256": nil,
        "packed-self-es256": nil,
        "none-es256-long-credential-id": nil,
        "none-es256-crossOrigin": .crossOrigin,
        "none-es256-topOrigin": .crossOrigin,
        "packed-es256": .attestationFormatNotAccepted("packed with a certificate chain"),
        "packed-rs256": .attestationFormatNotAccepted("packed with a certificate chain"),
        "packed-es384": .algorithmNotAccepted(-35),
        "packed-es512": .algorithmNotAccepted(-36),
        "packed-eddsa": .algorithmNotAccepted(-8),
        "packed-ed448": .algorithmNotAccepted(-53),
        "tpm-es256": .attestationFormatNotAccepted("tpm"),
        "android-key-es256": .attestationFormatNotAccepted("android-key"),
        "apple-es256": .attestationFormatNotAccepted("apple"),
        "fido-u2f-es256": .attestationFormatNotAccepted("fido-u2f"),
    ]

    @Test func theFixtureHoldsEveryExample() {
        #expect(Set(Self.vectors.keys) == Set(Self.expected.keys))
    }

    @Test(arguments: expected.keys.sorted())
    func registrationIsAcceptedOrRefusedForItsReason(_ name: String) throws {
        let v = try #require(Self.vectors[name])
        let (client, object, challenge) = (try Self.bytes(v.registration.clientDataJSON), try Self.bytes(v.registration.attestationObject), try Self.bytes(v.registration.challenge))
        let run = { () throws(WebAuthnError) -> RelyingParty.Registration in
            try Self.party.verifyRegistration(clientDataJSON: client, attestationObject: object, challenge: challenge)
        }
        switch Self.expected[name]! {
        case nil:
            let registration = try run()
            let data = try AttestationObject(try Self.bytes(v.registration.attestationObject)).authenticatorData
            #expect(registration.credentialID == data.attestedCredential?.credentialID)
            #expect(registration.publicKey.algorithm == -7)
            if name == "none-es256-long-credential-id" { #expect(registration.credentialID.count == 1023) }
        case let error?:
            #expect(throws: error) { try run() }
        }
    }

    /// The sign-ins of every example whose key is ES256 or RS256, checked with the key read
    /// from its registration (whatever its attestation).
    @Test(arguments: expected.keys.sorted().filter { !["packed-es384", "packed-es512", "packed-eddsa", "packed-ed448"].contains($0) })
    func signInVerifiesWithTheRegisteredKey(_ name: String) throws {
        let v = try #require(Self.vectors[name])
        let credential = try #require(try AttestationObject(try Self.bytes(v.registration.attestationObject)).authenticatorData.attestedCredential)
        let a = v.authentication
        let (client, data, signature, challenge) = (try Self.bytes(a.clientDataJSON), try Self.bytes(a.authenticatorData), try Self.bytes(a.signature), try Self.bytes(a.challenge))
        let run = { () throws(WebAuthnError) -> RelyingParty.Assertion in
            try Self.party.verifyAssertion(
                credentialID: credential.credentialID, clientDataJSON: client, authenticatorData: data, signature: signature, challenge: challenge,
                registered: credential.credentialID, publicKey: credential.publicKey, storedSignCount: 0)
        }
        if name.hasSuffix("crossOrigin") || name.hasSuffix("topOrigin") {
            #expect(throws: WebAuthnError.crossOrigin) { try run() }
        } else {
            let assertion = try run()
            #expect(assertion.signCount == 0)
            #expect(credential.publicKey.algorithm == (name == "packed-rs256" ? -257 : -7))
        }
    }
}
