import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport

/// Passkeys and recovery codes in the store, on every engine (names sealed where the store is):
/// a counter only moves forward, and a recovery code works once, also when two sign-ins race.
@Suite struct PasskeyStorageTests {
    static func passkey(_ id: UInt8, name: String = "Laptop", count: UInt32 = 0, created: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> StoredPasskey {
        StoredPasskey(
            credentialID: Data(repeating: id, count: 32), publicKey: Data([0xA5, id]), signCount: count, name: name, created: created, backupEligible: id % 2 == 0)
    }

    @Test(arguments: StoreEngine.all)
    func passkeysAreKeptRenamedAndRemoved(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let store = w.store
        #expect(try await store.passkeys().isEmpty)
        #expect(try await store.insertPasskey(Self.passkey(1)))
        #expect(try await store.insertPasskey(Self.passkey(2, name: "  ", created: Date(timeIntervalSince1970: 1_700_000_100))))
        // The same credential id twice is refused, and the first stays as it was.
        #expect(try await !store.insertPasskey(Self.passkey(1, name: "Other")))
        let all = try await store.passkeys()
        #expect(all.map(\.name) == ["Laptop", "Passkey"])
        #expect(all[0] == Self.passkey(1) && all[1].backupEligible && all[0].lastUsed == nil)
        #expect(try await store.passkey(credentialID: Data(repeating: 2, count: 32))?.name == "Passkey")
        #expect(try await store.passkey(credentialID: Data(repeating: 9, count: 32)) == nil)
        #expect(try await store.renamePasskey(credentialID: Data(repeating: 2, count: 32), to: String(repeating: "P", count: 100)))
        #expect(try await store.passkey(credentialID: Data(repeating: 2, count: 32))?.name.count == StoredPasskey.maximumNameLength)
        #expect(try await !store.renamePasskey(credentialID: Data(repeating: 9, count: 32), to: "x"))
        #expect(try await store.deletePasskey(credentialID: Data(repeating: 1, count: 32)))
        #expect(try await !store.deletePasskey(credentialID: Data(repeating: 1, count: 32)))
        #expect(try await store.passkeys().map(\.credentialID) == [Data(repeating: 2, count: 32)])
    }

    @Test(arguments: StoreEngine.all)
    func theCounterOnlyMovesForward(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let store = w.store
        let id = Data(repeating: 3, count: 32)
        _ = try await store.insertPasskey(Self.passkey(3, count: 5))
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await !store.recordPasskeyUse(credentialID: id, signCount: 5, at: at))
        #expect(try await !store.recordPasskeyUse(credentialID: id, signCount: 4, at: at))
        #expect(try await !store.recordPasskeyUse(credentialID: id, signCount: 0, at: at))
        #expect(try await store.passkey(credentialID: id)?.lastUsed == nil)
        #expect(try await store.recordPasskeyUse(credentialID: id, signCount: 6, at: at))
        let used = try #require(try await store.passkey(credentialID: id))
        #expect(used.signCount == 6 && used.lastUsed == at)
        // Two sign-ins with the same counter at once: exactly one is recorded.
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await store.recordPasskeyUse(credentialID: id, signCount: 7, at: at) } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
        // An authenticator without a counter stays at 0 and may sign in again; a missing
        // passkey records nothing.
        let zero = Data(repeating: 4, count: 32)
        _ = try await store.insertPasskey(Self.passkey(4))
        #expect(try await store.recordPasskeyUse(credentialID: zero, signCount: 0, at: at))
        #expect(try await store.recordPasskeyUse(credentialID: zero, signCount: 0, at: at))
        #expect(try await !store.recordPasskeyUse(credentialID: Data(repeating: 8, count: 32), signCount: 9, at: at))
    }

    @Test(arguments: StoreEngine.all)
    func recoveryCodesWorkOnceEachAndAreReplacedTogether(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let store = w.store
        let first = (0..<10).map { Data("first-\($0)".utf8) }
        try await store.replaceRecoveryCodes(digests: first)
        #expect(try await store.recoveryCodesLeft() == 10)
        #expect(try await store.useRecoveryCode(digest: first[3]))
        #expect(try await !store.useRecoveryCode(digest: first[3]))
        #expect(try await !store.useRecoveryCode(digest: Data("never".utf8)))
        #expect(try await store.recoveryCodesLeft() == 9)
        // Racing uses of one code: one wins.
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await store.useRecoveryCode(digest: first[5]) } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
        let second = (0..<10).map { Data("second-\($0)".utf8) }
        try await store.replaceRecoveryCodes(digests: second)
        #expect(try await store.recoveryCodesLeft() == 10)
        #expect(try await !store.useRecoveryCode(digest: first[0]))
        #expect(try await store.useRecoveryCode(digest: second[0]))
    }

    /// The name is sealed with the store's key: it does not appear in the SQLite file, and a
    /// key rotation reseals it.
    @Test func namesAreSealedInAnEncryptedStore() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("sealed.sqlite")
        let store = try await SQLiteHealthStore(path: path, credentials: StoreEngine.testKey, kdf: .testing)
        _ = try await store.insertPasskey(Self.passkey(6, name: "Grandma's tablet"))
        let next = StoreCredentials.keyFile(Data(repeating: 9, count: 32))
        try await store.rotateKey(from: StoreEngine.testKey, to: next, kdf: .testing, date: Date())
        // The database file and its write-ahead log: the name is in neither.
        for file in [path, path + "-wal"] {
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: file)) else { continue }
            #expect(bytes.range(of: Data("Grandma".utf8)) == nil, "\(file)")
        }
        let reopened = try await SQLiteHealthStore(path: path, credentials: next, kdf: .testing)
        #expect(try await reopened.passkeys().map(\.name) == ["Grandma's tablet"])
    }
}
