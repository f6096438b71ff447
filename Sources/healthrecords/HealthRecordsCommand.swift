import ArgumentParser
import HealthStoreCore
import HealthStoreSQLite
import Foundation

/// The `healthrecords` command: import, query and share health records.
struct HealthRecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthrecords",
        abstract: "Keep clinical records, SMART Health Cards and signed samples, query them like HealthKit does.",
        subcommands: [
            ImportCommand.self, RecordsCommand.self, ShowCommand.self, ChangesCommand.self, DeleteCommand.self,
            ImmunizationsCommand.self, MedicationsCommand.self, SourcesCommand.self, VerifyCommand.self, DCCCommand.self, CardsCommand.self, IssueCommand.self, QRCommand.self, SamplesCommand.self,
            SignatureCommand.self, KeysCommand.self, AppsCommand.self, AuditCommand.self, UnlockCommand.self, LockCommand.self,
            RotateKeyCommand.self, EncryptCommand.self, ProvidersCommand.self, SyncCommand.self, ServeCommand.self, PeopleCommand.self,
            ExportCommand.self, SummaryCommand.self, ShareCommand.self, BackupCommand.self, RestoreCommand.self, DemoCommand.self,
        ])
}

@main
enum Entry {
    static func main() async {
        MallocTuning.apply(arguments: CommandLine.arguments)
        if CommandLine.arguments.dropFirst().first != "serve" { SQLitePageCache.reserve() } else { SQLitePageCache.skipStatistics() }
        do {
            var command = try HealthRecordsCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("error: \(failure.message)\n".utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            let code = HealthRecordsCommand.exitCode(for: error)
            let message = HealthRecordsCommand.fullMessage(for: error)
            if code == .success {
                print(message)
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            // Usage errors exit with 2, as documented, rather than ArgumentParser's 64.
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

/// An error a command reports to the person, with the exit code it implies.
struct CommandFailure: Error {
    /// What to print after "error: ".
    let message: String
    /// 1 for failed work, 2 for usage or I/O errors.
    let exitCode: Int32

    static func usage(_ message: String) -> CommandFailure { CommandFailure(message: message, exitCode: 2) }
    static func failed(_ message: String) -> CommandFailure { CommandFailure(message: message, exitCode: 1) }
}
