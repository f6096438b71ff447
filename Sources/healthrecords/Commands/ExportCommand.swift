import ArgumentParser
import FHIR
import Foundation
import HealthArchive
import HealthStoreCore

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write everything in the store to a zip that `healthrecords import` takes back.",
        discussion: """
            The zip holds every resource's original bytes as FHIR NDJSON per source and resource \
            type (with a .meta.ndjson beside each: ids, FHIR versions, line breaks), the sources, \
            cards as .smart-health-card files and DCCs as HC1: text, quantity samples with their \
            signatures, and a manifest.json with every file's SHA-256 (docs/backup.md). The export \
            is not encrypted, even from an encrypted store. With --postgres it exports one person: \
            this is how a PostgreSQL store is backed up. Exit status: 0 when written, 1 when the \
            store failed, 2 for usage or I/O errors.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The zip file to write.")
    var out: String

    @Flag(help: "Replace the file when it exists.")
    var force = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        if FileManager.default.fileExists(atPath: out), !force {
            throw CommandFailure.usage("\(out) exists already; give --force to replace it")
        }
        let store = try await storeOptions.open()
        let bar = ProgressBar()
        let summary: ExportWriter.Summary
        do {
            summary = try await ExportWriter(store: store).write(to: out) { p in
                bar.update(done: p.done, total: p.total, bytesDone: 0, bytesTotal: 0, label: p.path)
            }
        } catch let e as ArchiveError {
            bar.finish()
            throw CommandFailure.usage(e.description)
        }
        bar.finish()
        let counts = summary.manifest.counts
        if json {
            JSONOutput.print(
                .object(
                    JSONObject(
                        [JSONMember("path", .string(out)), JSONMember("bytes", JSONOutput.int(summary.bytes)), JSONMember("files", JSONOutput.int(summary.manifest.files.count + 1))]
                            + counts.keys.sorted().map { JSONMember($0, JSONOutput.int(counts[$0] ?? 0)) })))
            return
        }
        print(
            "exported \(counts["resources"] ?? 0) resources from \(counts["sources"] ?? 0) sources, \(counts["cards"] ?? 0) cards, "
                + "\(counts["samples"] ?? 0) samples to \(out) (\(summary.bytes) bytes)")
    }
}
