import ArgumentParser
import Foundation
import HealthStore

/// Where the store lives: `--store PATH`, else `HEALTHRECORDS_STORE`, else the per-user data folder.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $HEALTHRECORDS_STORE, else ~/.local/share/healthrecords/store.sqlite).")
    var store: String?

    /// The path the options resolve to.
    var path: String {
        if let store { return store }
        let env = ProcessInfo.processInfo.environment
        if let p = env["HEALTHRECORDS_STORE"], !p.isEmpty { return p }
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("healthrecords/store.sqlite")
    }

    /// Opens the store; failures become usage/I-O errors (exit 2).
    func open() throws -> any HealthStore {
        do { return try SQLiteHealthStore(path: path) } catch { throw CommandFailure.usage(error.description) }
    }
}
