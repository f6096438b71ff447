import ArgumentParser
import Foundation
import HealthStoreCore
import HealthStoreSQLite

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the store file, safe while the server writes.",
        discussion: """
            The copy is one SQLite read transaction (VACUUM INTO): every transaction committed \
            before it started, none after, while writers go on. An encrypted store's backup is \
            encrypted under the same passphrase or key file (the wrapped data key is in the file). \
            SQLite stores only: for PostgreSQL, `export --postgres …` one person and `import` it \
            back (docs/backup.md).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The backup file to write (must not exist).")
    var out: String

    func run() async throws {
        guard storeOptions.postgres == nil else {
            throw CommandFailure.usage("backup copies a SQLite store file; for PostgreSQL use `healthrecords export --postgres URL --out FILE.zip` per person")
        }
        do { try await SQLiteBackup.backup(storePath: storeOptions.path, to: out) } catch { throw CommandFailure.usage(error.description) }
        let size = ((try? FileManager.default.attributesOfItem(atPath: out))?[.size] as? NSNumber)?.intValue ?? 0
        print("backed up \(storeOptions.path) to \(out) (\(size) bytes)")
    }
}

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the store file with a backup, after checking it.",
        discussion: """
            The backup is checked before anything is replaced: PRAGMA integrity_check, then opened \
            as a store — an encrypted backup with its key (--key-file, HEALTHRECORDS_PASSPHRASE or \
            the store's unlock session), so a wrong key is refused. An existing store is replaced \
            only with --force, atomically (written beside it, synced, renamed). Stop `serve` first. \
            Exit status: 0 when restored, 1 when the backup was refused, 2 for usage or I/O errors.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The backup file.")
    var backup: String

    @Flag(help: "Replace an existing store.")
    var force = false

    func run() async throws {
        guard storeOptions.postgres == nil else {
            throw CommandFailure.usage("restore replaces a SQLite store file; for PostgreSQL use `healthrecords import FILE.zip --postgres URL` into the person")
        }
        var credentials = try storeOptions.givenCredentials()
        if credentials == nil { credentials = storeOptions.session.dataKey()?.credentials }
        let summary: SQLiteBackup.RestoreSummary
        do {
            summary = try await SQLiteBackup.restore(from: backup, to: storeOptions.path, credentials: credentials, force: force)
        } catch {
            switch error {
            case .io, .outputExists, .noStore: throw CommandFailure.usage(error.description)
            default: throw CommandFailure.failed(error.description)
            }
        }
        print("restored \(storeOptions.path) from \(backup): integrity ok, \(summary.sources) sources, \(summary.encrypted ? "encrypted" : "not encrypted")")
    }
}
