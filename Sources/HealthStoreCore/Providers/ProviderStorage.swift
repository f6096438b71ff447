import Foundation

/// Where an engine keeps provider connections and the checkpoint of a sync under way. Both are
/// sealed with the store's key; policy (sign-in, refresh, what a sync does) lives above.
public protocol ProviderStorage: Sendable {
    /// Adds a connection or replaces the one with its id.
    func saveProvider(_ provider: ProviderConnection) async throws
    /// Saves a connection whose sync finished and clears its checkpoint, in one statement.
    func saveFinishedSync(_ provider: ProviderConnection) async throws
    /// Every connection, ordered by id.
    func providers() async throws -> [ProviderConnection]
    /// A connection by id.
    func provider(id: String) async throws -> ProviderConnection?
    /// Removes a connection and its checkpoint; returns whether it existed. Its records stay.
    func deleteProvider(id: String) async throws -> Bool
    /// Saves (or, with `nil`, clears) the checkpoint of a provider's sync under way: opaque
    /// bytes of the sync's own shape.
    func saveSyncCheckpoint(_ checkpoint: Data?, providerID: String) async throws
    /// The checkpoint of a provider's unfinished sync.
    func syncCheckpoint(providerID: String) async throws -> Data?
}
