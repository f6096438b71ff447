import ByteEncodings
import Crypto
import Foundation

/// An app registered to read the person's data, like an app with the HealthKit entitlement:
/// a name, a purpose shown on the consent sheet, a privacy-policy URL, the types it asks for
/// and the types it cannot work without.
public struct AppRegistration: Sendable, Hashable {
    /// The app's identifier (its OAuth2 client id).
    public let id: String
    /// The name shown to the person.
    public let name: String
    /// Why it wants the data (HealthKit's usage description).
    public let purpose: String
    /// The app's privacy policy page; checked at registration to be an http(s) URL with a host.
    public let privacyPolicyURL: URL
    /// The types it may ask to read.
    public let requestedTypes: Set<HealthDataType>
    /// The types it cannot work without (none, or at least three: fewer would tell the app
    /// too much about what was denied).
    public let requiredTypes: Set<HealthDataType>
    /// When it was registered.
    public let registeredDate: Date
    /// Where the consent pages may send the person back to: an authorization request names one
    /// of these exactly, or none (the person then stays on the server's page).
    public let redirectURIs: [URL]

    /// How the app proves who it is at the token endpoint (SMART's client types).
    public let clientType: ClientType
    /// An asymmetric client's public keys, as a JWKS JSON document given at registration.
    public let jwks: String?
    /// Where an asymmetric client publishes its JWKS instead (fetched when it authenticates).
    public let jwksURI: URL?

    /// The fewest required types a registration may name.
    public static let minimumRequiredTypes = 3

    /// Makes a registration, checking it.
    ///
    /// - Throws: ``ConsentError/invalidRegistration(_:)`` for an empty name or purpose, a
    ///   privacy URL that is not http(s), no requested types, required types that are not
    ///   requested, or one or two required types.
    public init(
        id: String, name: String, purpose: String, privacyPolicyURL: URL, requestedTypes: Set<HealthDataType>,
        requiredTypes: Set<HealthDataType> = [], registeredDate: Date, redirectURIs: [URL] = [], clientType: ClientType = .confidentialSymmetric,
        jwks: String? = nil, jwksURI: URL? = nil
    ) throws(ConsentError) {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .invalidRegistration("the app name is empty") }
        guard !purpose.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .invalidRegistration("the purpose string is empty") }
        guard let scheme = privacyPolicyURL.scheme?.lowercased(), ["https", "http"].contains(scheme), privacyPolicyURL.host != nil else {
            throw .invalidRegistration("the privacy policy URL must be an http(s) URL")
        }
        guard !requestedTypes.isEmpty else { throw .invalidRegistration("the app requests no types") }
        let extra = requiredTypes.subtracting(requestedTypes)
        guard extra.isEmpty else {
            throw .invalidRegistration("required types must be requested too: \(extra.sorted().map(\.name).joined(separator: ", "))")
        }
        guard requiredTypes.isEmpty || requiredTypes.count >= Self.minimumRequiredTypes else {
            throw .invalidRegistration("an app must require no types or at least \(Self.minimumRequiredTypes); it names \(requiredTypes.count)")
        }
        for uri in redirectURIs {
            guard let scheme = uri.scheme?.lowercased(), ["https", "http"].contains(scheme), let host = uri.host, !host.isEmpty, uri.fragment == nil,
                uri.user == nil, uri.password == nil
            else { throw .invalidRegistration("a redirect URI must be an absolute http(s) URL with a host and no fragment or user: \(uri.absoluteString)") }
            if scheme == "http", !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
                throw .invalidRegistration("a redirect URI must use https unless it is on this machine: \(uri.absoluteString)")
            }
        }
        switch clientType {
        case .confidentialAsymmetric:
            guard (jwks == nil) != (jwksURI == nil) else { throw .invalidRegistration("an asymmetric client registers either a JWKS or a JWKS URL, not both or neither") }
            if let jwksURI {
                guard let scheme = jwksURI.scheme?.lowercased(), ["https", "http"].contains(scheme), let host = jwksURI.host, !host.isEmpty,
                    jwksURI.fragment == nil, jwksURI.user == nil, jwksURI.password == nil
                else {
                    throw .invalidRegistration("the JWKS URL must be an absolute http(s) URL: \(jwksURI.absoluteString)")
                }
                // Keys fetched in clear could be swapped on the way. Plain http stays for a key
                // server on this machine, which the server reaches only when told loopback is allowed.
                if scheme == "http", !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
                    throw .invalidRegistration("the JWKS URL must use https unless it is on this machine: \(jwksURI.absoluteString)")
                }
            }
        case .public, .confidentialSymmetric:
            guard jwks == nil, jwksURI == nil else { throw .invalidRegistration("only an asymmetric client registers keys") }
        }
        if clientType == .public, redirectURIs.isEmpty { throw .invalidRegistration("a public client needs at least one redirect URI") }
        self.clientType = clientType
        self.jwks = jwks
        self.jwksURI = jwksURI
        self.redirectURIs = redirectURIs
        self.id = id
        self.name = name
        self.purpose = purpose
        self.privacyPolicyURL = privacyPolicyURL
        self.requestedTypes = requestedTypes
        self.requiredTypes = requiredTypes
        self.registeredDate = registeredDate
    }
}

/// How a client authenticates at the token endpoint (SMART App Launch's client types).
public enum ClientType: String, Sendable, Hashable, CaseIterable {
    /// Holds a secret (HTTP Basic, or the form for the client-credentials API).
    case confidentialSymmetric = "confidential-symmetric"
    /// Holds a private key and signs a client assertion (`private_key_jwt`, ES384 or RS384).
    case confidentialAsymmetric = "confidential-asymmetric"
    /// Cannot keep a secret (a browser or native app): PKCE alone binds its codes.
    case `public`
}

/// An app's registration as the store keeps it: the registration and a digest of its secret.
public struct StoredApp: Sendable, Hashable {
    /// The registration as checked when the app registered; the app's secret is not part of it.
    public let registration: AppRegistration
    /// SHA-256 of the app's secret; the secret itself is never stored.
    public let secretDigest: Data
    /// Counts the person's revocations of this app: access handed out under an older revision
    /// (tokens, event streams, webhooks) is void, in every process serving the store.
    public let accessRevision: Int

    /// Makes a stored app; a new app starts at access revision 0.
    public init(registration: AppRegistration, secretDigest: Data, accessRevision: Int = 0) {
        self.registration = registration
        self.secretDigest = secretDigest
        self.accessRevision = accessRevision
    }

    /// Whether a secret is this app's (a constant-time comparison of digests): what an OAuth2
    /// client-credentials check calls.
    public func verify(secret: String) -> Bool {
        let digest = AppSecret.digest(secret)
        guard digest.count == secretDigest.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(digest, secretDigest) { difference |= a ^ b }
        return difference == 0
    }
}

/// What registering an app returns: its id and, once only, its secret.
public struct AppCredentials: Sendable, Hashable {
    /// The app's ``AppRegistration/id`` (a lowercase UUID), which is also its OAuth2 client id.
    public let appID: String
    /// The secret (256 random bits, base64url); shown once, stored only as a digest. Empty for
    /// public and asymmetric clients, which never hold one.
    public let secret: String
}

enum AppSecret {
    static func make() -> String {
        Base64URL.encode(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    static func digest(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }
}
