import Foundation
import HealthStoreCore
import NetworkAddresses
import SMARTAuthorization

/// Adds, lists and removes provider connections, with the checks both front ends share.
public struct ProviderDirectory: Sendable {
    /// What a new connection is made of.
    public struct NewProvider: Sendable {
        /// The FHIR base URL.
        public var fhirBase: String
        /// The organization's name; learned from the provider at the first sync when `nil`.
        public var name: String?
        /// The id people type; a slug of the name (or host) when `nil`.
        public var id: String?
        /// The client id registered with the provider.
        public var clientID: String?
        /// How the client authenticates.
        public var client: ProviderConnection.ClientAuthentication = .publicClient
        /// The scopes to ask for; a patient-level read of everything when `nil`.
        public var scope: String?
        /// How access is obtained.
        public var access: ProviderConnection.Access = .signIn
        /// A token the person already holds (with ``patientID``).
        public var heldToken: String?
        /// The provider's id of the person's Patient.
        public var patientID: String?
        /// Allow `http://` to this machine (tests, a local provider).
        public var allowLoopback = false

        /// Makes a new provider description.
        public init(fhirBase: String) { self.fhirBase = fhirBase }
    }

    /// The scopes a person's sign-in asks for by default: read every patient record, keep
    /// access while away (`offline_access`), know who signed in.
    public static let defaultScope = "launch/patient openid fhirUser offline_access patient/*.rs"
    /// The scopes a backend client asks for by default.
    public static let defaultBackendScope = "system/*.rs"

    /// The store connections are kept in.
    public let store: any HealthStore
    /// The clock connections are dated with.
    public let clock: @Sendable () -> Date

    /// Makes a directory over a store.
    public init(store: any HealthStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.clock = clock
    }

    /// Adds a connection; nothing is fetched until it signs in or syncs.
    public func add(_ new: NewProvider) async throws(ProviderSyncError) -> ProviderConnection {
        guard let base = URL.fhirBase(new.fhirBase) else { throw .invalidBase(new.fhirBase, reason: "not an absolute URL without query or fragment") }
        try Self.check(base, allowLoopback: new.allowLoopback)
        let name = new.name?.trimmingCharacters(in: .whitespaces)
        let id = new.id ?? Self.slug(name ?? base.host ?? "provider")
        guard Self.isValidID(id) else { throw .invalidBase(new.fhirBase, reason: "the id \(id) must be 1–64 letters, digits, '-' or '_'") }
        let existing: ProviderConnection?
        do { existing = try await store.provider(id: id) } catch { throw .store("\(error)") }
        guard existing == nil else { throw .duplicateProvider(id) }
        var access = new.access
        var tokens: ProviderConnection.Tokens?
        var status = ProviderConnection.Status.notConnected
        if let held = new.heldToken {
            guard TokenEndpoint.isBearerToken(held) else { throw .signIn("the token has characters a bearer token cannot have") }
            guard new.patientID != nil else { throw .signIn("a held token needs the patient's id (--patient)") }
            access = .heldToken
            tokens = ProviderConnection.Tokens(accessToken: held)
            status = .connected
        }
        switch access {
        case .signIn:
            guard new.clientID != nil else { throw .signIn("signing in needs the client id registered with the provider (--client-id)") }
        case .backend:
            guard new.clientID != nil, case .privateKey = new.client else {
                throw .signIn("SMART Backend Services needs --client-id and --client-key (private_key_jwt)")
            }
            guard new.patientID != nil else { throw .signIn("a backend connection downloads one patient: give its id (--patient)") }
        case .heldToken: break
        }
        if case .privateKey(let text, let keyID) = new.client {
            do { _ = try ClientSigningKey(data: Data(text.utf8), keyID: keyID) } catch { throw .signIn("the client key cannot be used: \(error)") }
        }
        let scope = new.scope ?? (access == .backend ? Self.defaultBackendScope : Self.defaultScope)
        let provider = ProviderConnection(
            id: id, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? id, fhirBase: base.absoluteString, clientID: new.clientID, client: new.client,
            scope: scope, access: access, allowLoopback: new.allowLoopback, patientID: new.patientID, tokens: tokens, status: status, added: clock())
        do { try await store.saveProvider(provider) } catch { throw .store("\(error)") }
        return provider
    }

    /// Every connection.
    public func list() async throws(ProviderSyncError) -> [ProviderConnection] {
        do { return try await store.providers() } catch { throw .store("\(error)") }
    }

    /// The connection a person names: the one whose id is exactly `nameOrID`, else the one whose
    /// id or name it matches in any case (`providers add --name Sekmet` makes the id `sekmet`,
    /// and people type the name they gave). Two or more such matches are an error listing them.
    public func find(_ nameOrID: String) async throws(ProviderSyncError) -> ProviderConnection {
        do {
            if let exact = try await store.provider(id: nameOrID) { return exact }
        } catch { throw .store("\(error)") }
        let folded = nameOrID.lowercased()
        let matches = try await list().filter { $0.id.lowercased() == folded || $0.name.lowercased() == folded }
        guard let first = matches.first else { throw .unknownProvider(nameOrID) }
        guard matches.count == 1 else { throw .ambiguousProvider(nameOrID, ids: matches.map(\.id).sorted()) }
        return first
    }

    /// Removes a connection (and, when asked, every record downloaded from it); returns how
    /// many resources were deleted.
    public func remove(id: String, deleteRecords: Bool) async throws(ProviderSyncError) -> Int {
        do {
            guard let provider = try await store.provider(id: id) else { throw ProviderSyncError.unknownProvider(id) }
            _ = try await store.deleteProvider(id: id)
            return deleteRecords ? try await store.delete(source: provider.sourceIdentifier, resourceType: nil, identifier: nil) : 0
        } catch let error as ProviderSyncError { throw error } catch { throw .store("\(error)") }
    }

    /// https, or http to this machine when allowed: a token never crosses a network in clear.
    static func check(_ base: URL, allowLoopback: Bool) throws(ProviderSyncError) {
        let scheme = base.scheme?.lowercased()
        let host = (base.host ?? "").lowercased()
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let loopback = host == "localhost" || IPAddress(literal: literal).map { AddressClassification($0).kind == .loopback } ?? false
        if loopback && !allowLoopback { throw .invalidBase(base.absoluteString, reason: "a provider on this machine needs --allow-loopback") }
        if scheme == "https" { return }
        guard scheme == "http", loopback else { throw .invalidBase(base.absoluteString, reason: "only https (or http to this machine) carries tokens") }
    }

    static func slug(_ name: String) -> String {
        var out = ""
        var dash = false
        for c in name.lowercased().unicodeScalars {
            if CharacterSet.alphanumerics.contains(c) && c.isASCII {
                out.unicodeScalars.append(c)
                dash = false
            } else if !dash && !out.isEmpty {
                out += "-"
                dash = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return String(out.prefix(64)).isEmpty ? "provider" : String(out.prefix(64))
    }

    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }
}
