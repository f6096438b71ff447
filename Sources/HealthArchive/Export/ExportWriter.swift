import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import SmartHealthCards

/// Writes everything a person's store holds — every resource with its original bytes, under
/// its source; cards and DCCs as issued; quantity samples with their signatures — as a zip
/// that `healthrecords import` takes back (docs/backup.md has the layout).
///
/// Each part is read in one statement (all resources, all cards, all samples), so each part is
/// consistent in itself; a write landing between two reads may be in one part and not the
/// other. The export is plain text even from an encrypted store: it is the person's copy.
public struct ExportWriter: Sendable {
    /// How far an export has come: files written of all, and the file just written.
    public struct Progress: Sendable {
        /// Files written so far.
        public let done: Int
        /// Files to write in all.
        public let total: Int
        /// The path of the file just written.
        public let path: String
    }

    /// What an export wrote.
    public struct Summary: Sendable {
        /// The manifest written into the archive.
        public let manifest: ExportManifest
        /// The archive's size in bytes.
        public let bytes: Int
    }

    /// The store to export.
    public let store: any HealthStore
    /// What the manifest names as having made the export.
    public let generator: String

    /// Makes a writer over a store.
    public init(store: any HealthStore, generator: String = "healthrecords") {
        self.store = store
        self.generator = generator
    }

    /// Writes the export to `path` (written beside it and renamed into place at the end).
    public func write(to path: String, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Summary {
        let created = store.clock.now
        let files = try await collect()
        let zip = try ZipWriter(path: path, date: created)
        var listed: [ExportManifest.File] = []
        for (i, file) in files.enumerated() {
            try zip.add(file.path, file.bytes)
            listed.append(
                ExportManifest.File(
                    path: file.path, kind: file.kind, bytes: file.bytes.count, sha256: ExportManifest.sha256Hex(file.bytes), count: file.count,
                    sourceDirectory: file.sourceDirectory, resourceType: file.resourceType))
            progress?(Progress(done: i + 1, total: files.count + 1, path: file.path))
        }
        let manifest = ExportManifest(created: created, generator: generator, files: listed)
        try zip.add(ExportManifest.entryName, manifest.encoded())
        try zip.finish()
        progress?(Progress(done: files.count + 1, total: files.count + 1, path: ExportManifest.entryName))
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        return Summary(manifest: manifest, bytes: size)
    }

    /// One file of the export, made in memory.
    struct PendingFile {
        let path: String
        let kind: ExportManifest.Kind
        let bytes: [UInt8]
        let count: Int
        var sourceDirectory: String? = nil
        var resourceType: String? = nil
    }

    /// Reads the store and lays out the export's files (without the manifest).
    func collect() async throws -> [PendingFile] {
        var files: [PendingFile] = []
        let page = try await store.resources(ResourceQuery(resourceTypes: nil), visible: nil, countingTotal: false)
        // Sources in the order their first resource was added; types sorted within each.
        var order: [String] = []
        var sources: [String: RecordSource] = [:]
        var groups: [String: [FHIRResourceType: [StoredResource]]] = [:]
        for keyed in page.resources {
            let r = keyed.stored
            if sources[r.source.identifier] == nil {
                sources[r.source.identifier] = r.source
                order.append(r.source.identifier)
            }
            groups[r.source.identifier, default: [:]][r.resource.resourceType, default: []].append(r)
        }
        var sourceLines: [UInt8] = []
        var resourceFiles: [PendingFile] = []
        var used = Set<String>()
        for (n, identifier) in order.enumerated() {
            let source = sources[identifier]!
            let directory = String(format: "%03d", n + 1) + Self.slug(source.name)
            sourceLines += SourceLine(directory: directory, identifier: source.identifier, name: source.name).encoded() + [0x0A]
            let byType = groups[identifier] ?? [:]
            for type in byType.keys.sorted() {
                var lines: [UInt8] = []
                var metas: [UInt8] = []
                let list = byType[type] ?? []
                for stored in list {
                    let flat = LineBreaks.flatten(Array(stored.resource.data))
                    lines += flat.line + [0x0A]
                    let meta = ResourceMeta(
                        resourceType: type.rawValue, id: stored.resource.identifier, fhirVersion: stored.resource.fhirVersion.stringRepresentation,
                        fullUrl: stored.resource.sourceURL?.absoluteString, displayName: stored.displayName, lf: flat.lf, cr: flat.cr)
                    metas += meta.encoded() + [0x0A]
                }
                // Types are ASCII words in FHIR; a store holding two odd ones with one slug keeps both.
                var base = "resources/\(directory)/\(Self.slug(type.rawValue, leading: false))"
                while used.contains(base) { base += "_" }
                used.insert(base)
                resourceFiles.append(PendingFile(path: base + ".ndjson", kind: .resources, bytes: lines, count: list.count, sourceDirectory: directory, resourceType: type.rawValue))
                resourceFiles.append(PendingFile(path: base + ".meta.ndjson", kind: .resourceMeta, bytes: metas, count: list.count, sourceDirectory: directory, resourceType: type.rawValue))
            }
        }
        files.append(PendingFile(path: "sources.ndjson", kind: .sources, bytes: sourceLines, count: order.count))
        files += resourceFiles

        let cards = try await store.verifiableRecords(VerifiableRecordQuery())
        var index: [UInt8] = []
        for (n, card) in cards.enumerated() {
            let name = String(format: "cards/%03d", n + 1) + (card.record.sourceType == .smartHealthCard ? ".smart-health-card" : ".hc1.txt")
            files.append(PendingFile(path: name, kind: .card, bytes: CardLine.fileBytes(card.record), count: 1))
            index += CardLine(file: name, card: card).encoded() + [0x0A]
        }
        files.append(PendingFile(path: "cards/cards.ndjson", kind: .cardIndex, bytes: index, count: cards.count))

        let samples = try await store.samples(QuantitySampleQuery(type: nil))
        var sampleLines: [UInt8] = []
        for s in samples { sampleLines += SampleLine.encode(s.sample) + [0x0A] }
        files.append(PendingFile(path: "samples/samples.ndjson", kind: .samples, bytes: sampleLines, count: samples.count))
        return files
    }

    /// A name made safe for a path: ASCII letters, digits, `-` and `_`, at most 40 characters,
    /// after a `-` (the number before it keeps folders apart, whatever the names).
    static func slug(_ name: String, leading: Bool = true) -> String {
        var out = ""
        var lastDash = false
        for scalar in name.unicodeScalars {
            let ok = (scalar.value < 0x80) && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_")
            if ok {
                out.unicodeScalars.append(scalar)
                lastDash = false
            } else if !lastDash, !out.isEmpty {
                out += "-"
                lastDash = true
            }
            if out.count >= 40 { break }
        }
        while out.hasSuffix("-") { out.removeLast() }
        if out.isEmpty { return leading ? "" : "Resource" }
        return leading ? "-" + out : out
    }
}
