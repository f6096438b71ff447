import ClinicalRecords
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Finding 8: under umask 022 the store's files (database, WAL, SHM) were readable by every
/// local user. They are 0600 whatever the umask, and a store made world-readable by an older
/// version is tightened when opened.
@Suite(.serialized) struct OwnerOnlyFileTests {
    static func mode(_ path: String) -> mode_t? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o777 : nil
    }

    @Test func storeFilesAreOwnerOnlyUnderAPermissiveUmask() async throws {
        let old = umask(0o022)
        defer { umask(old) }
        let dir = TemporaryDirectory()
        let path = dir.path("nested/folder/store.sqlite")
        let store = try await SQLiteHealthStore(path: path)
        let file = try dir.write("in/r.json", #"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"}}"#)
        _ = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: "clinic"))).importPaths([file])
        for p in [path, path + "-wal", path + "-shm"] {
            let m = try #require(Self.mode(p), "\(p) missing")
            #expect(m == 0o600, "\(p) is \(String(m, radix: 8))")
        }
        #expect(Self.mode(dir.path("nested/folder")) == 0o700)
    }

    @Test func aWorldReadableStoreIsTightenedOnOpen() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        _ = try await SQLiteHealthStore(path: path)
        chmod(path, 0o644)
        _ = try await SQLiteHealthStore(path: path)
        #expect(Self.mode(path) == 0o600)
    }
}
