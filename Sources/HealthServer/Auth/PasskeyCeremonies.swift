import ByteEncodings
import Crypto
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import WebAuthn

/// Passkey enrolment and sign-in for the person (WebAuthn; docs/passkeys.md).
///
/// Everything a ceremony holds between its two requests is in the store: the challenge (a
/// ``StoredCredential`` of kind `webauthn`, five minutes, taken once whichever process the
/// answer reaches), the passkey and its counter (raised in one statement, so a sign-in is
/// accepted once), and the recovery codes (deleted by the sign-in that uses one). The relying
/// party is the server's public URL.
struct PasskeyCeremonies: Sendable {
    let store: any PasskeyStorage & CredentialStorage
    let clock: HealthClock
    let address: ServerAddress
    /// The user handle of the person's passkeys: ``singlePersonHandle``, or in a server for many
    /// people their id, which is how a sign-in at the front finds whose passkey it is.
    var userHandle = Self.singlePersonHandle

    /// How long a ceremony's challenge holds.
    static let challengeLifetime: TimeInterval = 300
    /// How many recovery codes are made at a time.
    static let recoveryCodeCount = 10
    /// The user handle in a server for one person: one person per store, so one constant handle
    /// (an authenticator keeps one passkey per site and handle, and replaces it when enrolled again).
    static let singlePersonHandle = Array("healthrecords-person".utf8)

    /// Why a ceremony failed; `message` is what the page shows.
    enum Failure: Error, Sendable, Equatable {
        /// The request is not what the page sends (missing or undecodable members).
        case malformed(String)
        /// The challenge was never issued, was used, expired, or was for the other ceremony.
        case challengeNotIssued
        /// WebAuthn refused it.
        case refused(WebAuthnError)
        /// No passkey with that credential id.
        case unknownPasskey
        /// The counter did not move forward when stored (a replay that raced another sign-in).
        case replayed
        /// A passkey with that credential id is already enrolled.
        case alreadyEnrolled
        /// The public URL is not one a passkey can be scoped to.
        case noRelyingParty

        var message: String {
            switch self {
            case .malformed(let what): "The passkey answer could not be read (\(what))."
            case .challengeNotIssued: "That passkey request expired or was already used. Try again."
            case .refused(let error): "The passkey was refused: \(error)."
            case .unknownPasskey: "That passkey is not enrolled here."
            case .replayed: "That passkey answer was already used."
            case .alreadyEnrolled: "That passkey is already enrolled."
            case .noRelyingParty: "Passkeys need the server's public URL to have a host name."
            }
        }
    }

    var relyingParty: RelyingParty? { URL(string: address.baseURL).flatMap { RelyingParty(publicURL: $0) } }

    /// The options `navigator.credentials.create` takes, with a new challenge.
    func registrationOptions() async throws -> EncodedJSON {
        guard let party = relyingParty else { throw Failure.noRelyingParty }
        let challenge = try await issueChallenge(.register)
        let enrolled = try await store.passkeys().map { key -> EncodedJSON in
            .object([("type", .string("public-key")), ("id", .string(Base64URL.encode(key.credentialID)))])
        }
        return .object([
            ("challenge", .string(Base64URL.encode(challenge))),
            ("rp", .object([("id", .string(party.id)), ("name", .string("HealthRecords"))])),
            ("user", .object([("id", .string(Base64URL.encode(userHandle))), ("name", .string("you")), ("displayName", .string("Your health records"))])),
            ("pubKeyCredParams", .array(CredentialPublicKey.acceptedAlgorithms.map { .object([("type", .string("public-key")), ("alg", .int(Int($0)))]) })),
            ("timeout", .int(Int(Self.challengeLifetime * 1000))),
            ("attestation", .string("none")),
            ("authenticatorSelection", .object([
                ("residentKey", .string("required")), ("requireResidentKey", .bool(true)), ("userVerification", .string("required")),
            ])),
            ("excludeCredentials", .array(enrolled)),
        ])
    }

    /// Enrols the passkey a browser made; the recovery codes are made when there are none left
    /// and returned to be shown once.
    func register(_ body: JSONObject) async throws -> (StoredPasskey, recoveryCodes: [String]) {
        guard let party = relyingParty else { throw Failure.noRelyingParty }
        let credential = try Self.credential(body)
        let client = try Self.bytes(credential.response, "clientDataJSON")
        let object = try Self.bytes(credential.response, "attestationObject")
        try await take(client, .register)
        let registration: RelyingParty.Registration
        do {
            registration = try party.verifyRegistration(clientDataJSON: client, attestationObject: object, challenge: try Self.challenge(client))
        } catch let error as WebAuthnError { throw Failure.refused(error) }
        guard registration.credentialID == credential.rawID else { throw Failure.malformed("rawId is not the credential's id") }
        let passkey = StoredPasskey(
            credentialID: Data(registration.credentialID), publicKey: Data(registration.publicKey.cose), signCount: registration.signCount,
            name: body.string("name") ?? "", created: clock.now, backupEligible: registration.backupEligible)
        guard try await store.insertPasskey(passkey) else { throw Failure.alreadyEnrolled }
        let codes = try await store.recoveryCodesLeft() == 0 ? try await newRecoveryCodes() : []
        return (passkey, codes)
    }

    /// The options `navigator.credentials.get` takes, with a new challenge (any of the person's
    /// passkeys: they are discoverable).
    func signInOptions() async throws -> EncodedJSON {
        guard let party = relyingParty else { throw Failure.noRelyingParty }
        let challenge = try await issueChallenge(.signIn)
        return .object([
            ("challenge", .string(Base64URL.encode(challenge))), ("rpId", .string(party.id)), ("timeout", .int(Int(Self.challengeLifetime * 1000))),
            ("userVerification", .string("required")), ("allowCredentials", .array([])),
        ])
    }

    /// Checks a sign-in; the passkey's counter and last use are stored.
    ///
    /// - Parameter signedChallenges: at the front of a server for many people the challenge was
    ///   not stored in anyone's store (whose passkey answers is not known when it is asked for)
    ///   but signed: it is checked against its signature and lifetime, and taken once by
    ///   recording it in this person's store after the signature verified.
    func signIn(_ body: JSONObject, signedChallenges: SignInChallenges? = nil) async throws -> StoredPasskey {
        guard let party = relyingParty else { throw Failure.noRelyingParty }
        let credential = try Self.credential(body)
        let client = try Self.bytes(credential.response, "clientDataJSON")
        let data = try Self.bytes(credential.response, "authenticatorData")
        let signature = try Self.bytes(credential.response, "signature")
        var signedExpiry: Date?
        if let signedChallenges {
            guard let expiry = signedChallenges.expiry(of: try Self.challenge(client), now: clock.now) else { throw Failure.challengeNotIssued }
            signedExpiry = expiry
        } else {
            try await take(client, .signIn)
        }
        // A handle the answer names must be this person's (at the front it chose the store).
        if let handle = credential.response.string("userHandle"), !handle.isEmpty, (try? Base64URL.decode(handle)) != userHandle {
            throw Failure.unknownPasskey
        }
        guard let passkey = try await store.passkey(credentialID: Data(credential.rawID)) else { throw Failure.unknownPasskey }
        let assertion: RelyingParty.Assertion
        do {
            let key = try CredentialPublicKey(cose: Array(passkey.publicKey))
            assertion = try party.verifyAssertion(
                credentialID: credential.rawID, clientDataJSON: client, authenticatorData: data, signature: signature, challenge: try Self.challenge(client),
                registered: Array(passkey.credentialID), publicKey: key, storedSignCount: passkey.signCount)
        } catch let error as WebAuthnError { throw Failure.refused(error) }
        if let signedExpiry {
            let digest = Data(SHA256.hash(data: try Self.challenge(client)))
            let taken = try await store.insertCredential(
                StoredCredential(kind: .passkeyChallenge, digest: digest, appID: nil, family: digest, expires: signedExpiry, details: Data("taken".utf8)))
            guard taken else { throw Failure.challengeNotIssued }
        }
        guard try await store.recordPasskeyUse(credentialID: passkey.credentialID, signCount: assertion.signCount, at: clock.now) else {
            throw Failure.replayed
        }
        return passkey
    }

    /// New recovery codes, replacing any left: shown once, stored as digests.
    func newRecoveryCodes() async throws -> [String] {
        let codes = (0..<Self.recoveryCodeCount).map { _ in Self.makeRecoveryCode() }
        try await store.replaceRecoveryCodes(digests: codes.map(Self.recoveryDigest))
        return codes
    }

    /// Uses a recovery code: `true` once per code.
    func useRecoveryCode(_ code: String) async throws -> Bool {
        let normalized = Self.normalize(code)
        guard normalized.count == 16 else { return false }
        return try await store.useRecoveryCode(digest: Self.recoveryDigest(normalized))
    }

    /// Takes an enrolment invite: `true` once, before it expires.
    func takeInvite(_ token: String) async throws -> Bool {
        guard !token.isEmpty, token.utf8.count <= 256 else { return false }
        let digest = SecretToken.digest(token)
        guard let stored = try await store.credential(.enrolmentInvite, digest: digest),
            try await store.deleteCredential(.enrolmentInvite, digest: digest)
        else { return false }
        return stored.expires > clock.now
    }

    // MARK: Pieces

    enum Purpose: String { case register, signIn = "sign-in" }

    private func issueChallenge(_ purpose: Purpose) async throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let challenge = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let digest = Data(SHA256.hash(data: challenge))
        _ = try await store.insertCredential(
            StoredCredential(
                kind: .passkeyChallenge, digest: digest, appID: nil, family: digest, expires: clock.now.addingTimeInterval(Self.challengeLifetime),
                details: Data(purpose.rawValue.utf8)))
        return challenge
    }

    /// Takes the challenge the client data carries: it must have been issued for this ceremony,
    /// not expired, and not taken before (by this process or another).
    private func take(_ clientDataJSON: [UInt8], _ purpose: Purpose) async throws {
        let digest = Data(SHA256.hash(data: try Self.challenge(clientDataJSON)))
        guard let stored = try await store.credential(.passkeyChallenge, digest: digest),
            try await store.deleteCredential(.passkeyChallenge, digest: digest),
            stored.expires > clock.now, stored.details == Data(purpose.rawValue.utf8)
        else { throw Failure.challengeNotIssued }
    }

    private static func challenge(_ clientDataJSON: [UInt8]) throws -> [UInt8] {
        do { return try CollectedClientData(json: clientDataJSON).challenge } catch { throw Failure.refused(error) }
    }

    /// The `credential` member the page posts: a PublicKeyCredential with its buffers in base64url.
    private static func credential(_ body: JSONObject) throws -> (rawID: [UInt8], response: JSONObject) {
        guard let credential = body["credential"]?.objectValue else { throw Failure.malformed("no credential") }
        guard credential.string("type") == "public-key" else { throw Failure.malformed("the credential is not a public-key credential") }
        guard let response = credential["response"]?.objectValue else { throw Failure.malformed("no response") }
        let rawID = try bytes(credential, "rawId")
        guard !rawID.isEmpty, rawID.count <= 1023 else { throw Failure.malformed("rawId is empty or too long") }
        return (rawID, response)
    }

    private static func bytes(_ object: JSONObject, _ name: String) throws -> [UInt8] {
        guard let text = object.string(name) else { throw Failure.malformed("no \(name)") }
        guard text.utf8.count <= 128 * 1024, let bytes = try? Base64URL.decode(text) else { throw Failure.malformed("\(name) is not base64url") }
        return bytes
    }

    private static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    /// Sixteen characters of a 31-letter alphabet without look-alikes (79 bits), in groups of four.
    static func makeRecoveryCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 16, by: 4).map { String(letters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// A code as typed, without case, spaces or dashes.
    static func normalize(_ code: String) -> String {
        String(code.lowercased().filter { $0 != "-" && !$0.isWhitespace }.prefix(64))
    }

    static func recoveryDigest(_ code: String) -> Data { Data(SHA256.hash(data: Array(normalize(code).utf8))) }
}
