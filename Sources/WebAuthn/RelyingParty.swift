import Crypto
import Foundation

/// This server as a WebAuthn relying party: the RP ID credentials are scoped to and the one
/// origin its pages are served from, both from its public URL. Verifies registrations
/// (WebAuthn §7.1) and assertions (§7.2) made with them.
public struct RelyingParty: Sendable, Hashable {
    /// The RP ID: the public URL's host.
    public let id: String
    /// The public URL's origin (`https://host[:port]`).
    public let origin: String
    /// Whether every ceremony must verify the user (PIN, biometrics), not only test presence.
    public var requiresUserVerification: Bool

    /// A relying party for pages served at `publicURL`.
    ///
    /// - Returns: `nil` when the URL has no scheme or host, or its host is an IP address
    ///   (browsers take only a domain as an RP ID; `localhost` is one).
    public init?(publicURL: URL, requiresUserVerification: Bool = true) {
        guard let scheme = publicURL.scheme?.lowercased(), let host = publicURL.host?.lowercased(), !host.isEmpty else { return nil }
        guard !host.contains(":"), !host.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = publicURL.port.flatMap { $0 == defaultPort ? nil : $0 }
        self.init(id: host, origin: scheme + "://" + host + (port.map { ":\($0)" } ?? ""), requiresUserVerification: requiresUserVerification)
    }

    /// A relying party with an explicit RP ID and origin.
    public init(id: String, origin: String, requiresUserVerification: Bool = true) {
        (self.id, self.origin, self.requiresUserVerification) = (id, origin, requiresUserVerification)
    }

    /// A credential a registration made, to store.
    public struct Registration: Sendable, Hashable {
        public let credentialID: [UInt8]
        public let publicKey: CredentialPublicKey
        public let signCount: UInt32
        public let aaguid: [UInt8]
        /// Whether the credential may be synced to the person's other devices.
        public let backupEligible: Bool
        /// The attestation format the authenticator used.
        public let attestationFormat: String
    }

    /// What a verified assertion changes in the stored credential.
    public struct Assertion: Sendable, Hashable {
        /// The counter to store.
        public let signCount: UInt32
        public let userVerified: Bool
        public let backedUp: Bool
    }

    /// Verifies a registration against the challenge this server issued for it.
    ///
    /// Attestation `none` is accepted, and `packed` self-attestation (signed by the new key
    /// itself); statements with certificates, which would only matter with an authenticator
    /// allow-list, are refused.
    public func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8]) throws(WebAuthnError) -> Registration {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let object = try AttestationObject(attestationObject)
        let data = object.authenticatorData
        try checkAuthenticatorData(data)
        guard let credential = data.attestedCredential else { throw .attestedCredentialData(expected: true) }
        let clientDataHash = Array(SHA256.hash(data: clientDataJSON))
        switch object.format {
        case "none":
            guard object.statement.mapEntries?.isEmpty == true else { throw .attestationStatementInvalid(reason: "a none statement must be empty") }
        case "packed":
            guard object.statement["x5c"] == nil else { throw .attestationFormatNotAccepted("packed with a certificate chain") }
            guard object.statement["alg"]?.int64 == credential.publicKey.algorithm else {
                throw .attestationStatementInvalid(reason: "alg differs from the credential key's algorithm")
            }
            guard let signature = object.statement["sig"]?.bytes else { throw .attestationStatementInvalid(reason: "no sig") }
            guard credential.publicKey.verifies(signature, over: data.bytes + clientDataHash) else {
                throw .attestationStatementInvalid(reason: "the self-attestation signature does not verify")
            }
        default:
            throw .attestationFormatNotAccepted(object.format)
        }
        return Registration(
            credentialID: credential.credentialID, publicKey: credential.publicKey, signCount: data.signCount, aaguid: credential.aaguid,
            backupEligible: data.flags.contains(.backupEligible), attestationFormat: object.format)
    }

    /// Verifies an assertion against the challenge this server issued and the stored
    /// credential; the caller stores the returned counter.
    ///
    /// - Parameter storedSignCount: the counter kept from the last ceremony. When either
    ///   counter is non-zero the new one must be greater (WebAuthn §6.1.1).
    public func verifyAssertion(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], challenge: [UInt8],
        registered: [UInt8], publicKey: CredentialPublicKey, storedSignCount: UInt32
    ) throws(WebAuthnError) -> Assertion {
        guard credentialID == registered else { throw .credentialMismatch }
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(authenticatorData)
        try checkAuthenticatorData(data)
        guard data.attestedCredential == nil else { throw .attestedCredentialData(expected: false) }
        guard publicKey.verifies(signature, over: authenticatorData + Array(SHA256.hash(data: clientDataJSON))) else { throw .signatureInvalid }
        if data.signCount != 0 || storedSignCount != 0, data.signCount <= storedSignCount {
            throw .signCountNotIncreased(stored: storedSignCount, received: data.signCount)
        }
        return Assertion(signCount: data.signCount, userVerified: data.flags.contains(.userVerified), backedUp: data.flags.contains(.backedUp))
    }

    private func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        let client = try CollectedClientData(json: json)
        guard client.type == type else { throw .wrongCeremony(expected: type, found: client.type) }
        guard Self.constantTimeEqual(client.challenge, challenge) else { throw .challengeMismatch }
        guard client.origin == origin else { throw .originMismatch(expected: origin, found: client.origin) }
        guard !client.crossOrigin, client.topOrigin == nil else { throw .crossOrigin }
    }

    private func checkAuthenticatorData(_ data: AuthenticatorData) throws(WebAuthnError) {
        guard Self.constantTimeEqual(data.rpIDHash, Array(SHA256.hash(data: Array(id.utf8)))) else { throw .relyingPartyMismatch }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if requiresUserVerification, !data.flags.contains(.userVerified) { throw .userNotVerified }
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) { throw .backupStateWithoutEligibility }
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
