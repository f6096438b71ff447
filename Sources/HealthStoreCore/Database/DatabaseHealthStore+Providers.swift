import Foundation

/// Provider connections and sync checkpoints: the id and the date added in the clear (they
/// name nothing about the person's health), everything else sealed. Writes take short
/// transactions of their own, like credentials: saving a refreshed token must not wait for an
/// import.
extension DatabaseHealthStore {
    /// Durable: it holds tokens, and a refresh token the provider has rotated cannot be had again.
    public func saveProvider(_ provider: ProviderConnection) async throws {
        try await upsertProvider(provider, clearingCheckpoint: false, durable: true)
    }

    /// Not made durable at once (the end of every sync): lost to a power cut, the next sync
    /// starts from the previous one's date and fetches a little more.
    public func saveFinishedSync(_ provider: ProviderConnection) async throws {
        try await upsertProvider(provider, clearingCheckpoint: true, durable: false)
    }

    private func upsertProvider(_ provider: ProviderConnection, clearingCheckpoint: Bool, durable: Bool) async throws {
        let details = try sealer.seal(try Self.providerEncoder.encode(provider))
        var q = sql("INSERT INTO provider_connection (")
        q += q.personColumn + "id, added_date, details) VALUES (" + q.personValue + q.bind(provider.id) + ", "
        q += q.bind(provider.added.timeIntervalSince1970) + ", " + q.bind(details) + ") ON CONFLICT (" + q.personColumn
        q += "id) DO UPDATE SET details = excluded.details" + (clearingCheckpoint ? ", checkpoint = NULL" : "")
        let final = q
        try await providerTransaction(durable: durable) { session in try await session.run(final) }
    }

    public func providers() async throws -> [ProviderConnection] {
        var q = sql("SELECT details FROM provider_connection WHERE ")
        q += q.scope() + " ORDER BY id"
        let final = q
        let sealer = self.sealer
        return try await read { session in try await session.rows(final).map { try Self.provider($0, sealer) } }
    }

    public func provider(id: String) async throws -> ProviderConnection? {
        var q = sql("SELECT details FROM provider_connection WHERE ")
        q += q.scope() + " AND id = " + q.bind(id)
        let final = q
        let sealer = self.sealer
        return try await read { session in try await session.row(final).map { try Self.provider($0, sealer) } }
    }

    public func deleteProvider(id: String) async throws -> Bool {
        var q = sql("DELETE FROM provider_connection WHERE ")
        q += q.scope() + " AND id = " + q.bind(id) + " RETURNING id"
        let final = q
        return try await providerTransaction { session in try await session.row(final) != nil }
    }

    public func saveSyncCheckpoint(_ checkpoint: Data?, providerID: String) async throws {
        let sealed = try checkpoint.map { try sealer.seal($0) }
        var q = sql("UPDATE provider_connection SET checkpoint = ")
        q += q.bind(sealed) + " WHERE " + q.scope() + " AND id = " + q.bind(providerID) + " RETURNING id"
        let final = q
        let found = try await providerTransaction { session in try await session.row(final) != nil }
        if !found { throw HealthStoreError.invalidArgument("no provider \(providerID)") }
    }

    public func syncCheckpoint(providerID: String) async throws -> Data? {
        var q = sql("SELECT checkpoint FROM provider_connection WHERE ")
        q += q.scope() + " AND id = " + q.bind(providerID)
        let final = q
        let sealer = self.sealer
        return try await read { session in
            guard let row = try await session.row(final), let sealed = try row.optionalData(0) else { return nil }
            return try sealer.open(sealed)
        }
    }

    private static let providerEncoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return e
    }()

    private static func provider(_ row: SQLRow, _ sealer: any RecordSealer) throws -> ProviderConnection {
        let bytes = try sealer.open(try row.data(0))
        do { return try JSONDecoder().decode(ProviderConnection.self, from: bytes) } catch {
            throw HealthStoreError.corruptRecord("a provider connection cannot be read: \(error)")
        }
    }

    private func providerTransaction<T: Sendable>(durable: Bool = false, _ body: (any SQLSession) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        return try await guarded { durable ? try await database.durableTransaction(body) : try await database.transaction(body) }
    }
}
