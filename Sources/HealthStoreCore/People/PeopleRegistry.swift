import Foundation

/// A person a server holds records for: the id that names their store, and the name the
/// operator gave them.
public struct PersonEntry: Sendable, Hashable {
    /// `p-` and 16 hex digits: safe in a file name, a URL and a PostgreSQL key.
    public let id: String
    /// The operator's name for them ("Ana", "Dad").
    public let name: String
    public let created: Date

    public init(id: String, name: String, created: Date) { (self.id, self.name, self.created) = (id, name, created) }

    /// A new random id.
    public static func makeID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "p-" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether text is an id this registry makes (nothing else names a store).
    public static func isValidID(_ text: String) -> Bool {
        // Bytes, not Characters: every request to a person's path asks this, and Unicode
        // properties took a fiftieth of the many-people server's time.
        let bytes = text.utf8
        return bytes.count == 18 && bytes.starts(with: "p-".utf8)
            && bytes.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The longest name kept, in characters.
    public static let maximumNameLength = 100

    /// A name as kept: trimmed and cut; empty is refused by ``PeopleRegistry/add(name:)``.
    public static func cleanName(_ name: String) -> String {
        String(name.trimmingCharacters(in: .whitespacesAndNewlines).prefix(maximumNameLength))
    }
}

/// The people of a server with many (`serve --people DIR`, or a PostgreSQL database without
/// `person=`): the operator's list. Listing spans people, so it is an operator's view and is on
/// no app's or person's request path (docs/scaling.md).
public protocol PeopleRegistry: Sendable {
    /// Adds a person with an empty store.
    ///
    /// - Throws: ``HealthStoreError/invalidArgument(_:)`` for a blank name.
    func add(name: String) async throws -> PersonEntry
    /// Every person, oldest first.
    func list() async throws -> [PersonEntry]
    /// One person by id.
    func entry(id: String) async throws -> PersonEntry?
    /// Removes a person and all their data, and nothing else; `false` when there is no such person.
    func remove(id: String) async throws -> Bool
    /// Opens a registered person's store (``entry(id:)`` first: a mistyped id must not make a
    /// new store), unlocked with `credentials` when it is encrypted.
    func openStore(id: String, credentials: StoreCredentials?, clock: HealthClock) async throws -> DatabaseHealthStore
    /// A random 32-byte secret of the whole server under `name`, made the first time it is asked
    /// for and the same for every process after (what signs the server's own sign-in challenges).
    /// It is server-wide, not a person's: a small reference table on a cluster.
    func serverSecret(_ name: String) async throws -> Data
    /// The operator's catalogue: apps registered once for every person, oldest first. A person's
    /// store gets a copy of each when it is opened by a server for many people; grants, tokens
    /// and everything else stay the person's. Server-wide: a reference table on a cluster.
    func catalogueApps() async throws -> [StoredApp]
    /// Adds an app to the catalogue.
    func addCatalogueApp(_ app: StoredApp) async throws
    /// Takes an app out of the catalogue (people who have it keep their copy); `false` when it
    /// was not there.
    func removeCatalogueApp(id: String) async throws -> Bool
}

extension PeopleRegistry {
    /// 32 random bytes for a new server secret.
    public static func newSecret() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
