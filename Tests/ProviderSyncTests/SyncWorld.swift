import Foundation
import HealthStoreCore
import HealthStoreSQLite
import LoopbackHTTP
import TestSupport

@testable import ProviderSync

/// A scripted provider on loopback, a real SQLite store in a temporary folder, and the
/// provider's connection in that store, added as `providers add` adds it.
struct SyncWorld {
    static let providerID = "clinic"

    let dir: TemporaryDirectory
    let store: any HealthStore
    let provider: ScriptedProvider
    let server: LoopbackHTTPServer

    init(_ configuration: ScriptedProvider.Configuration) async throws {
        dir = TemporaryDirectory()
        store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        let started = try await ScriptedProvider.start(configuration)
        provider = started.provider
        server = started.server
    }

    /// Adds the connection: sign-in with the provider's client id, http to this machine
    /// allowed, no name (the first sync learns the organization's).
    @discardableResult
    func addConnection() async throws -> ProviderConnection {
        var new = ProviderDirectory.NewProvider(fhirBase: provider.fhirBase)
        new.id = Self.providerID
        new.clientID = provider.configuration.clientID
        new.allowLoopback = true
        return try await ProviderDirectory(store: store).add(new)
    }

    /// A connection that signed in before: the tokens the provider issued then (the access
    /// token expiring at `expires`, unknown when `nil`), and its patient.
    @discardableResult
    func addSignedInConnection(expires: Date? = Date().addingTimeInterval(3600)) async throws -> ScriptedProvider.Issued {
        var connection = try await addConnection()
        let issued = provider.grant()
        connection.tokens = ProviderConnection.Tokens(accessToken: issued.access, refreshToken: issued.refresh, expires: expires)
        connection.patientID = provider.configuration.patient
        connection.status = .connected
        try await store.saveProvider(connection)
        return issued
    }

    /// The connection as stored now.
    func connection() async throws -> ProviderConnection? {
        try await store.provider(id: Self.providerID)
    }

    func sync(_ options: SyncOptions = SyncOptions()) async -> SyncReport {
        await ProviderSyncer(store: store).sync(providerID: Self.providerID, options: options)
    }

    /// `Type/id` of every resource stored under the provider's source.
    func stored() async throws -> Set<String> {
        let source = "provider:" + Self.providerID
        let page = try await store.resources(ResourceQuery(resourceTypes: nil), visible: nil, countingTotal: false)
        return Set(page.resources.map(\.stored).filter { $0.source.identifier == source }.map { $0.resource.resourceType.rawValue + "/" + $0.resource.identifier })
    }

    /// The checkpoint's bytes, `nil` when no sync is unfinished.
    func checkpointData() async throws -> Data? {
        try await store.syncCheckpoint(providerID: Self.providerID)
    }

    /// The checkpoint of an unfinished sync, read as the syncer reads it.
    func checkpoint() async throws -> SyncCheckpoint? {
        guard let data = try await store.syncCheckpoint(providerID: Self.providerID) else { return nil }
        return try SyncCheckpoint(encoded: data)
    }
}
