import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport

/// Household arrangements and the proxy log in the store, on every engine: an arrangement is one
/// row per other person and role, saved again without a second row; the log lists newest first,
/// its actions sealed in an encrypted store and resealed by a key rotation.
@Suite struct HouseholdStorageTests {
    static let day = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: StoreEngine.all)
    func arrangementsAndTheProxyLog(engine: StoreEngine) async throws {
        let store = try await ConsentWorld(engine).store
        #expect(try await store.householdMembers().isEmpty)
        try await store.saveHouseholdMember(HouseholdMember(id: "p-00000000000000aa", name: "Ana", role: .proxy, since: Self.day))
        try await store.saveHouseholdMember(HouseholdMember(id: "p-00000000000000aa", name: "Ana B.", role: .proxy, since: Self.day.addingTimeInterval(9)))
        try await store.saveHouseholdMember(HouseholdMember(id: "p-00000000000000cc", name: "Cleo", role: .represented, since: Self.day.addingTimeInterval(5)))
        let members = try await store.householdMembers()
        #expect(members.map(\.id) == ["p-00000000000000aa", "p-00000000000000cc"])
        #expect(members[0].name == "Ana B." && members[0].since == Self.day && members[1].role == .represented)
        #expect(try await store.removeHouseholdMember(id: "p-00000000000000aa", role: .proxy))
        #expect(try await !store.removeHouseholdMember(id: "p-00000000000000aa", role: .proxy))
        #expect(try await !store.removeHouseholdMember(id: "p-00000000000000cc", role: .proxy))
        #expect(try await store.householdMembers().map(\.id) == ["p-00000000000000cc"])

        for n in 0..<3 {
            try await store.recordProxyAction(ProxyAction(actorID: "p-00000000000000aa", actorName: "Ana", action: "GET /record/\(n)", date: Self.day.addingTimeInterval(Double(n))))
        }
        let log = try await store.proxyActions(limit: 2)
        #expect(log.map(\.action) == ["GET /record/2", "GET /record/1"] && log.allSatisfy { $0.actorName == "Ana" })
    }

    @Test func actionsAreSealedAndResealed() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("sealed.sqlite")
        let store = try await SQLiteHealthStore(path: path, credentials: StoreEngine.testKey, kdf: .testing)
        try await store.recordProxyAction(ProxyAction(actorID: "p-00000000000000aa", actorName: "Ana", action: "GET /record/secret-page", date: Self.day))
        let next = StoreCredentials.keyFile(Data(repeating: 9, count: 32))
        try await store.rotateKey(from: StoreEngine.testKey, to: next, kdf: .testing, date: Date())
        for file in [path, path + "-wal"] {
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: file)) else { continue }
            #expect(bytes.range(of: Data("secret-page".utf8)) == nil, "\(file)")
        }
        let reopened = try await SQLiteHealthStore(path: path, credentials: next, kdf: .testing)
        #expect(try await reopened.proxyActions(limit: 5).map(\.action) == ["GET /record/secret-page"])
    }
}
