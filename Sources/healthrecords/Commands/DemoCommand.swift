import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthArchive
import HealthImport
import HealthStoreCore
import SmartHealthCards

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a store from the demo set the repository ships (Demo/): needs nothing else.",
        discussion: """
            The demo set is one person's records from three providers (FHIR R4 and DSTU2), a signed \
            SMART Health Card with its issuer's keys, and signed glucose samples (Demo/README.md). \
            It is found in --from DIR, else ./Demo, else a Demo folder above the executable (as \
            `swift run` and .build/debug/healthrecords are). Each provider's file is its own source, \
            named after the organization; the card is verified with the demo issuer's keys. Running \
            it again changes nothing. A store holding other data is left alone unless --force is \
            given, which replaces it.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The demo folder (default: ./Demo, else the Demo folder above the executable).")
    var from: String?

    @Flag(help: "Replace a store that holds other data.")
    var force = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let folder = try demoFolder()
        let demo = try DemoSet(folder: folder)
        if force, storeOptions.postgres == nil { Self.removeStore(storeOptions.path) }
        var samples: [QuantitySample] = []
        if let file = demo.samples {
            let data = try Self.read(folder.appendingPathComponent(file))
            for (n, line) in data.split(separator: 0x0A).enumerated() {
                do { samples.append(try SampleLine.decode(Array(line))) } catch { throw CommandFailure.failed("\(file) line \(n + 1): \(error.description)") }
            }
        }
        let store = try await storeOptions.open()
        // The demo's own sources: its providers, and the meter that saved its samples.
        let known = Set(demo.providers.map(\.identifier) + samples.map(\.source.identifier))
        var foreign = try await store.sources().filter { !known.contains($0.identifier) }
        if force, storeOptions.postgres != nil {
            // A person in PostgreSQL has no file to remove: delete what the person holds.
            for s in try await store.sources() { _ = try await store.delete(source: s.identifier, resourceType: nil, identifier: nil) }
            _ = try await store.deleteSamples(type: nil, predicate: nil)
            for card in try await store.verifiableRecords(VerifiableRecordQuery()) { _ = try await store.deleteVerifiableRecord(identifier: card.identifier) }
            foreign = []
        }
        if !foreign.isEmpty {
            throw CommandFailure.failed(
                "the store at \(storeOptions.location) holds other data (\(foreign.count) sources); give --force to replace it, or --store PATH for another store")
        }
        var report: [(String, ImportOutcome)] = []
        for p in demo.providers {
            var options = RecordImporter.Options()
            options.source = RecordSource(identifier: p.identifier, name: p.name)
            let result = await RecordImporter(store: store, options: options).importPaths([folder.appendingPathComponent(p.file).path])
            if let failed = result.files.first(where: { $0.status == .failed }) {
                throw CommandFailure.failed("\(p.file): \(failed.error?.description ?? "failed")")
            }
            report.append((p.name, result.totals))
        }
        var cardsOutcome = ImportOutcome()
        for card in demo.cards {
            var options = RecordImporter.Options()
            options.cardVerifier = SmartHealthCardVerifier(keys: IssuerFilesKeySource(issuer: card.issuer, directory: folder.appendingPathComponent(card.keys)))
            let result = await RecordImporter(store: store, options: options).importPaths([folder.appendingPathComponent(card.file).path])
            if let failed = result.files.first(where: { $0.status == .failed }) {
                throw CommandFailure.failed("\(card.file): \(failed.error?.description ?? "failed")")
            }
            cardsOutcome += result.totals
        }
        let saved = try await store.saveSamples(samples)
        if json {
            JSONOutput.print(
                .object(
                    JSONObject([
                        JSONMember("store", .string(storeOptions.location)),
                        JSONMember(
                            "providers",
                            .array(report.map { .object(JSONObject([JSONMember("source", .string($0.0))] + JSONOutput.outcome($0.1))) })),
                        JSONMember("cards", .object(JSONObject(JSONOutput.outcome(cardsOutcome)))),
                        JSONMember("samplesSaved", JSONOutput.int(saved.saved.count)),
                        JSONMember("samplesUnchanged", JSONOutput.int(saved.unchanged.count)),
                    ])))
            return
        }
        var table = TextTable("provider", "inserted", "updated", "unchanged", "not-a-record")
        for (name, o) in report { table.add(name, "\(o.inserted)", "\(o.updated)", "\(o.unchanged)", "\(o.notRecords)") }
        print("demo set from \(folder.path) into \(storeOptions.location)")
        print(table.rendered)
        print("cards: \(cardsOutcome.inserted) new, \(cardsOutcome.unchanged + cardsOutcome.updated) already stored (verified with the demo issuer's keys)")
        print("samples: \(saved.saved.count) saved, \(saved.unchanged.count) already stored")
        print("next: healthrecords serve\(storeOptions.store.map { " --store \($0)" } ?? "")")
    }

    /// `--from`, else `./Demo`, else the first `Demo` folder above the executable.
    func demoFolder() throws -> URL {
        let fm = FileManager.default
        if let from {
            guard fm.fileExists(atPath: (from as NSString).appendingPathComponent(DemoSet.manifestName)) else {
                throw CommandFailure.usage("\(from) holds no \(DemoSet.manifestName)")
            }
            return URL(fileURLWithPath: from)
        }
        var candidates = [URL(fileURLWithPath: fm.currentDirectoryPath).appendingPathComponent("Demo")]
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path != "/" {
            candidates.append(dir.appendingPathComponent("Demo"))
            dir.deleteLastPathComponent()
        }
        guard let found = candidates.first(where: { fm.fileExists(atPath: $0.appendingPathComponent(DemoSet.manifestName).path) }) else {
            throw CommandFailure.usage("no demo set found (./Demo or above the executable); give --from DIR")
        }
        return found
    }

    static func removeStore(_ path: String) {
        for p in [path, path + "-wal", path + "-shm", path + "-journal"] { unlink(p) }
    }

    static func read(_ url: URL) throws -> Data {
        do { return try Data(contentsOf: url) } catch { throw CommandFailure.usage("cannot read \(url.path)") }
    }
}

/// `Demo/demo.json`: the demo set's files and what to file them under.
struct DemoSet {
    static let manifestName = "demo.json"

    struct Provider {
        let file: String
        let identifier: String
        let name: String
    }

    struct Card {
        let file: String
        let issuer: String
        /// The folder holding the issuer's `.well-known/jwks.json`.
        let keys: String
    }

    let providers: [Provider]
    let cards: [Card]
    let samples: String?

    init(folder: URL) throws {
        let data = try DemoCommand.read(folder.appendingPathComponent(Self.manifestName))
        guard let top = (try? JSONReader().read(data))?.objectValue else { throw CommandFailure.usage("\(Self.manifestName) is not a JSON object") }
        providers = (top["providers"]?.arrayValue ?? []).compactMap { v in
            guard let o = v.objectValue, let file = o["file"]?.stringValue, let name = o["name"]?.stringValue else { return nil }
            return Provider(file: file, identifier: o["identifier"]?.stringValue ?? name, name: name)
        }
        cards = (top["cards"]?.arrayValue ?? []).compactMap { v in
            guard let o = v.objectValue, let file = o["file"]?.stringValue, let issuer = o["issuer"]?.stringValue, let keys = o["keys"]?.stringValue else { return nil }
            return Card(file: file, issuer: issuer, keys: keys)
        }
        samples = top["samples"]?.stringValue
        guard !providers.isEmpty else { throw CommandFailure.usage("\(Self.manifestName) names no providers") }
    }
}
