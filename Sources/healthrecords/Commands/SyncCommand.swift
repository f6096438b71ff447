import ArgumentParser
import Foundation
import HealthStoreCore
import ProviderSync

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Download new and changed records from providers (a full download finds deletions); continues an interrupted sync.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The provider's id or name, in any case (or --all).")
    var id: String?

    @Flag(help: "Sync every provider.")
    var all = false

    @Flag(help: "Download everything (and find deletions) even when an incremental sync would do.")
    var full = false

    @Option(name: .customLong("page-cap"), help: "The most pages one search may have.")
    var pageCap: Int = 1000

    @Option(help: "How many searches run at once.")
    var concurrency: Int = 4

    @Flag(name: .customLong("no-everything"), help: "Search type by type even where the provider offers Patient/$everything.")
    var noEverything = false

    @Flag(name: .customLong("fetch-only"), help: "Fetch every page as a sync would, store nothing (for benchmarks).")
    var fetchOnly = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        if all == (id != nil) { throw CommandFailure.usage("give a provider's id or --all") }
        guard pageCap > 0, (1...32).contains(concurrency) else { throw CommandFailure.usage("--page-cap must be positive and --concurrency 1–32") }
        let store = try await storeOptions.open()
        let ids = try await providerWork { () async throws -> [String] in
            if let id { return [try await ProviderDirectory(store: store).find(id).id] }
            return try await ProviderDirectory(store: store).list().map(\.id)
        }
        var options = SyncOptions()
        options.full = full
        options.fetchOnly = fetchOnly
        options.useEverything = !noEverything
        options.pageCap = pageCap
        options.concurrency = concurrency
        let syncer = ProviderSyncer(store: store)
        let bar = ProgressBar()
        var reports: [SyncReport] = []
        for id in ids {
            let plain = !bar.isTerminal && !json
            let report = await syncer.sync(providerID: id, options: options) { p in
                let line = "\(p.provider): \(p.stepsDone)/\(p.stepsTotal) searches, \(p.pages) pages, \(p.resources) resources (\(p.current))"
                if plain { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { bar.status(line) }
            }
            bar.finish()
            reports.append(report)
            if !json { Self.describe(report) }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            struct Output: Encodable { let providers: [SyncReport] }
            print(String(decoding: try encoder.encode(Output(providers: reports)), as: UTF8.self))
        }
        if let failed = reports.first(where: { $0.error != nil }) {
            if json { throw ExitCode(1) }
            throw CommandFailure.failed("\(failed.id): \(failed.error!.message)")
        }
    }

    static func describe(_ r: SyncReport) {
        var text = "\(r.id): \(r.mode) sync, \(r.fetched) fetched, \(r.inserted) new, \(r.updated) changed, \(r.unchanged) unchanged"
        if r.deleted > 0 { text += ", \(r.deleted) deleted" }
        text += String(format: " in %.1f s", r.seconds) + (r.resumed ? " (continued an interrupted sync)" : "")
        print(text)
        for w in r.warnings { print("  skipped \(w)") }
        if r.leftOut > 0 { print("  left out \(r.leftOut) resource\(r.leftOut == 1 ? "" : "s") not shown to be this patient's (another patient's, or naming no one this sync can resolve)") }
    }
}
