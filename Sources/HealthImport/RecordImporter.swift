import ClinicalRecords
import DigitalCovidCertificates
import FHIR
import Foundation
import HealthStoreCore
import SmartHealthCards

/// Imports files and folders of FHIR content and SMART Health Cards into a store, one
/// transaction per file.
///
/// Folders are walked recursively for `*.json`, `*.ndjson`, `*.smart-health-card`, `*.png` and `*.jpg`/`*.jpeg`;
/// there, a file that is valid JSON but plainly not FHIR (a bulk export's `log.ndjson`) is
/// skipped. A file named directly must be FHIR or cards. Without a source, each file is its own
/// source, named after the file: FHIR ids are only unique within the system that made them, and
/// unrelated files must not overwrite each other. The report lists files in the order of the
/// paths given, a folder's files in sorted path order at the folder's place.
public struct RecordImporter: Sendable {
    /// Options for an import.
    public struct Options: Sendable {
        /// The source for every file; `nil` makes each file its own source.
        public var source: RecordSource?
        /// The name people see for each file's own source (when ``source`` is `nil`); without
        /// it, a bundle's organization (the one its encounters name as provider, else its first
        /// named Organization), else the file name.
        public var sourceName: String?
        /// The FHIR version to read content as; detected when `nil`.
        public var fhirVersion: FHIRVersion?
        /// JSON limits for each document (also caps a JSON file's size).
        public var jsonLimits: JSONLimits
        /// The longest NDJSON line in bytes (default 64 MiB); a longer line fails its file.
        public var maxLineBytes: Int
        /// The most resources in one bundle.
        public var maxBundleEntries: Int
        /// Verifies SMART Health Cards on the way in; without one, card files fail.
        public var cardVerifier: SmartHealthCardVerifier?
        /// Verifies EU DCCs on the way in against its DSC trust list; without one, DCCs are
        /// checked against an empty list (so none verifies).
        public var dccVerifier: DCCVerifier?
        /// Store cards that fail verification, marked unverified, instead of failing the file.
        public var allowUnverified = false
        /// The time cards are verified at; the store's clock when `nil`.
        public var verificationTime: Date?

        /// Makes options; ``cardVerifier`` starts `nil`, so card files fail until one is set.
        public init(
            source: RecordSource? = nil, fhirVersion: FHIRVersion? = nil, jsonLimits: JSONLimits = .default,
            maxLineBytes: Int = 64 << 20, maxBundleEntries: Int = 500_000
        ) {
            self.source = source
            self.fhirVersion = fhirVersion
            self.jsonLimits = jsonLimits
            self.maxLineBytes = maxLineBytes
            self.maxBundleEntries = maxBundleEntries
        }
    }

    /// The store to import into.
    public let store: any HealthStore
    /// How files are read; the FHIR and the card halves of an import share them.
    public let options: Options
    /// The classifier and namer.
    public let builder: RecordBuilder

    /// Makes an importer; nothing is read until ``importPaths(_:progress:)`` or ``importFile(_:)``.
    public init(store: any HealthStore, options: Options = Options(), builder: RecordBuilder = RecordBuilder()) {
        self.store = store
        self.options = options
        self.builder = builder
    }

    /// A file to import and whether it was named directly.
    public struct Candidate: Sendable, Equatable {
        /// The file's location; never a folder (folders are expanded into their files).
        public let url: URL
        /// Named on the command line (must be FHIR) rather than found in a folder.
        public let explicit: Bool
        /// Size in bytes when found; a JSON file larger than the document limit fails without being read.
        public let bytes: Int64
    }

    /// A path expanded: a file to import, or why the path could not be read.
    enum Found: Sendable {
        case file(Candidate)
        case unreadable(FileImportResult)
    }

    /// Expands paths into files, in the order given: folders recursively (`*.json`, `*.ndjson`,
    /// `*.smart-health-card`, `*.png`, in sorted path order), files as given. A path that cannot
    /// be read becomes a failed result in its place.
    func candidates(_ paths: [String]) -> [Found] {
        var found: [Found] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                found.append(.unreadable(failure(path, .unreadable(path: path, reason: "no such file or folder"), bytes: 0)))
                continue
            }
            if isDirectory.boolValue {
                guard fm.isReadableFile(atPath: path), let walker = fm.enumerator(atPath: path) else {
                    found.append(.unreadable(failure(path, .unreadable(path: path, reason: "folder cannot be read"), bytes: 0)))
                    continue
                }
                var inside: [String] = []
                while let rel = walker.nextObject() as? String {
                    let lower = rel.lowercased()
                    if lower.hasSuffix(".json") || lower.hasSuffix(".ndjson") || lower.hasSuffix(".smart-health-card") || lower.hasSuffix(".png")
                        || lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
                    {
                        inside.append(rel)
                    }
                }
                for rel in inside.sorted() {
                    let full = (path as NSString).appendingPathComponent(rel)
                    var sub: ObjCBool = false
                    guard fm.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue else { continue }
                    found.append(.file(Candidate(url: URL(fileURLWithPath: full), explicit: false, bytes: size(full))))
                }
            } else {
                found.append(.file(Candidate(url: URL(fileURLWithPath: path), explicit: true, bytes: size(path))))
            }
        }
        return found
    }

    /// One step of an import, at the position of its (first) file.
    private enum Step: Sendable {
        case unreadable(FileImportResult)
        case fhir(Candidate)
        case cards(CardBatch)
    }

    /// Imports every path; files that fail do not stop the others.
    ///
    /// Card files are read first, together, since one card's QR chunks may be in several
    /// files; then every file lands in the order given.
    public func importPaths(_ paths: [String], progress: (@Sendable (ImportProgress) -> Void)? = nil) async -> ImportReport {
        let found = candidates(paths)
        let cards = CardImporter(store: store, options: options)
        var steps: [(position: Int, step: Step)] = []
        var cardFiles: [(position: Int, file: Candidate)] = []
        var filesTotal = 0
        var bytesTotal: Int64 = 0
        for (position, item) in found.enumerated() {
            switch item {
            case .unreadable(let result): steps.append((position, .unreadable(result)))
            case .file(let file):
                filesTotal += 1
                bytesTotal += file.bytes
                if cards.isCardFile(file) { cardFiles.append((position, file)) } else { steps.append((position, .fhir(file))) }
            }
        }
        steps += cards.read(cardFiles).map { ($0.position, .cards($0)) }
        let ordered = steps.enumerated().sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }.map(\.element)
        let fhirFiles = ordered.compactMap { entry -> Candidate? in
            if case .fhir(let file) = entry.step { return file }
            return nil
        }

        var report = ImportReport()
        var done = Set<Int>()
        var bytesDone: Int64 = 0
        // Read and classify the next FHIR file while the current one is written: the two halves
        // use different cores. At most two files are in memory at once.
        var next: Task<Result<PreparedFile, ImportError>, Never>? = fhirFiles.first.map { f in Task { prepare(f) } }
        var fhirDone = 0
        for (position, step) in ordered {
            let result: FileImportResult
            switch step {
            case .unreadable(let failed):
                report.files.append(failed)
                continue
            case .fhir(let file):
                let prepared = await next!.value
                fhirDone += 1
                next = fhirDone < fhirFiles.count ? Task { [file = fhirFiles[fhirDone]] in prepare(file) } : nil
                result = await store(file, prepared)
                done.insert(position)
            case .cards(let batch):
                result = await cards.save(batch)
                done.formUnion(batch.positions)
            }
            report.files.append(result)
            bytesDone += result.bytes
            progress?(ImportProgress(filesDone: done.count, filesTotal: filesTotal, bytesDone: bytesDone, bytesTotal: bytesTotal, lastFile: result))
        }
        return report
    }

    /// Imports one file in one transaction.
    public func importFile(_ file: Candidate) async -> FileImportResult {
        await store(file, prepare(file))
    }

    /// Reads and classifies a JSON file, or opens an NDJSON file for streaming.
    func prepare(_ file: Candidate) -> Result<PreparedFile, ImportError> {
        if Self.isNDJSON(file.url) {
            do {
                return .success(prepareNDJSON(try NDJSONReader(url: file.url, maxLineBytes: options.maxLineBytes)))
            } catch {
                return .failure(.unreadable(path: file.url.path, reason: (error as NSError).localizedDescription))
            }
        }
        guard file.bytes <= options.jsonLimits.maxDocumentBytes else {
            return .failure(.fileTooLarge(size: file.bytes, limit: options.jsonLimits.maxDocumentBytes))
        }
        let data: Data
        do { data = try Data(contentsOf: file.url) } catch {
            return .failure(.unreadable(path: file.url.path, reason: (error as NSError).localizedDescription))
        }
        return prepareJSON(data)
    }

    /// Reads and classifies bytes as the file `name` would be read (NDJSON by its extension).
    func prepare(_ data: Data, name: String) -> Result<PreparedFile, ImportError> {
        if Self.isNDJSON(URL(fileURLWithPath: name)) { return .success(prepareNDJSON(NDJSONReader(data: data, maxLineBytes: options.maxLineBytes))) }
        guard data.count <= options.jsonLimits.maxDocumentBytes else {
            return .failure(.fileTooLarge(size: Int64(data.count), limit: options.jsonLimits.maxDocumentBytes))
        }
        return prepareJSON(data)
    }

    private var documents: FHIRDocumentReader {
        FHIRDocumentReader(jsonLimits: options.jsonLimits, maxBundleEntries: options.maxBundleEntries, fhirVersion: options.fhirVersion)
    }

    private func prepareNDJSON(_ reader: consuming NDJSONReader) -> PreparedFile {
        PreparedFile(producer: NDJSONProducer(reader: reader, documents: documents, builder: builder))
    }

    private func prepareJSON(_ data: Data) -> Result<PreparedFile, ImportError> {
        let content: FHIRContent
        do { content = try documents.read(data, sourceURL: nil) } catch { return .failure(error == .notFHIR ? .notFHIR : .fhir(error)) }
        do {
            let items = Self.lastOccurrences(try builder.classify(content))
            return .success(PreparedFile(producer: ResourceList(items), organizationName: OrganizationName.of(items)))
        } catch {
            return .failure(.fhir(error))
        }
    }

    /// Writes a prepared file in one transaction and reports what happened.
    func store(_ file: Candidate, _ prepared: Result<PreparedFile, ImportError>) async -> FileImportResult {
        await store(path: file.url.path, name: file.url.lastPathComponent, explicit: file.explicit, bytes: file.bytes, prepared)
    }

    /// Writes prepared content named `name` (its source, unless the options name one).
    func store(path: String, name: String, explicit: Bool, bytes: Int64, _ prepared: Result<PreparedFile, ImportError>) async -> FileImportResult {
        let file = (explicit: explicit, bytes: bytes)
        // A file is its own source (FHIR ids are unique only within the system that made them),
        // named for people after `--source-name`, else the organization the file came from.
        let organization = (try? prepared.get())?.organizationName
        let source = options.source ?? RecordSource(identifier: name, name: options.sourceName ?? organization)
        do {
            let outcome = try await store.importResources(source: source, from: try prepared.get().producer)
            return FileImportResult(path: path, status: .imported, outcome: outcome, source: source.identifier, error: nil, bytes: file.bytes)
        } catch let e as ImportError {
            if e == .notFHIR, !file.explicit {
                return FileImportResult(path: path, status: .skipped, outcome: ImportOutcome(), source: nil, error: e, bytes: file.bytes)
            }
            return failure(path, e, bytes: file.bytes)
        } catch let e as HealthStoreError {
            return failure(path, .store(e.description), bytes: file.bytes)
        } catch {
            return failure(path, .unreadable(path: path, reason: "\(error)"), bytes: file.bytes)
        }
    }

    /// Keeps only the last resource of each type and id in a document, as a FHIR transaction
    /// would: otherwise a bundle naming one resource twice would "update" it on every re-import.
    static func lastOccurrences(_ items: [ClassifiedResource]) -> [ClassifiedResource] {
        var seen = Set<String>()
        var kept: [ClassifiedResource] = []
        for item in items.reversed() where seen.insert(item.resource.resourceType.rawValue + "/" + item.resource.identifier).inserted {
            kept.append(item)
        }
        return kept.reversed()
    }

    /// Whether a file is read as NDJSON (by its extension).
    public static func isNDJSON(_ url: URL) -> Bool {
        ["ndjson", "jsonl"].contains(url.pathExtension.lowercased())
    }

    private func failure(_ path: String, _ error: ImportError, bytes: Int64) -> FileImportResult {
        FileImportResult(path: path, status: .failed, outcome: ImportOutcome(), source: nil, error: error, bytes: bytes)
    }

    private func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
