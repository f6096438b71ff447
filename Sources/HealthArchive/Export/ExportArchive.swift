import FHIR
import Foundation
import HealthStoreCore

/// An export read back and checked: a zip with a known manifest, every listed file present
/// with its size and SHA-256, nothing unlisted, and every line of every file in the form the
/// layout says. Building one reads (and inflates) every file once; nothing is written.
public struct ExportArchive: Sendable {
    /// One source and its resource files.
    public struct Source: Sendable {
        /// The source line.
        public let line: SourceLine
        /// Its resource files as (resources, meta) pairs, in manifest order.
        public let files: [(resources: String, meta: String)]
    }

    /// The manifest.
    public let manifest: ExportManifest
    /// The sources, in the order written.
    public let sources: [Source]
    /// The card lines.
    public let cards: [CardLine]
    /// How many samples the export holds.
    public let sampleCount: Int
    /// The path of the samples file.
    public let samplesFile: String
    private let zip: ZipReader

    /// Whether a file is a zip holding a `manifest.json` (without checking anything else):
    /// how `import` tells an export from other input.
    public static func looksLikeExport(path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        guard (try? h.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04]) else { return false }
        return true
    }

    /// Opens and checks an export file.
    public init(path: String, limits: ZipLimits = .default) throws(ArchiveError) {
        try self.init(zip: ZipReader(path: path, limits: limits))
    }

    /// Checks an export already opened as a zip.
    public init(zip: ZipReader) throws(ArchiveError) {
        self.zip = zip
        guard let manifestEntry = zip.entry(named: ExportManifest.entryName) else { throw .missingManifest }
        guard manifestEntry.size <= 64 << 20 else { throw .tooLarge(what: ExportManifest.entryName, size: manifestEntry.size, limit: 64 << 20) }
        let manifest = try ExportManifest(decoding: zip.read(manifestEntry))
        self.manifest = manifest
        var listed = Set<String>()
        for f in manifest.files {
            try ZipReader.checkName(f.path)
            guard listed.insert(f.path).inserted else { throw .badManifest("\(f.path) is listed twice") }
            guard zip.entry(named: f.path) != nil else { throw .missingEntry(f.path) }
        }
        for e in zip.entries where e.name != ExportManifest.entryName && !listed.contains(e.name) { throw .unlistedEntry(e.name) }
        // Every file's hash first: a damaged export is refused before any line is parsed.
        var contents: [String: [UInt8]] = [:]
        for f in manifest.files {
            let bytes = try zip.read(zip.entry(named: f.path)!)
            guard bytes.count == f.bytes, ExportManifest.sha256Hex(bytes) == f.sha256.lowercased() else { throw .hashMismatch(entry: f.path) }
            if f.kind != .resources && f.kind != .resourceMeta { contents[f.path] = bytes }
        }
        func only(_ kind: ExportManifest.Kind) throws(ArchiveError) -> ExportManifest.File {
            let list = manifest.files.filter { $0.kind == kind }
            guard list.count == 1 else { throw .badManifest("the manifest must list one \(kind.rawValue) file, not \(list.count)") }
            return list[0]
        }
        let sourcesFile = try only(.sources)
        var sources: [Source] = []
        var directories = Set<String>()
        for (n, line) in Self.lines(contents[sourcesFile.path] ?? []).enumerated() {
            let s: SourceLine
            do { s = try SourceLine(decoding: line) } catch { throw .badContent(entry: sourcesFile.path, line: n + 1, reason: error.description) }
            guard directories.insert(s.directory).inserted else { throw .badContent(entry: sourcesFile.path, line: n + 1, reason: "directory \(s.directory) repeats") }
            let resourceFiles = manifest.files.filter { $0.kind == .resources && $0.sourceDirectory == s.directory }
            var pairs: [(resources: String, meta: String)] = []
            for r in resourceFiles {
                guard r.path.hasSuffix(".ndjson") else { throw .badManifest("\(r.path) is not .ndjson") }
                let meta = String(r.path.dropLast(".ndjson".count)) + ".meta.ndjson"
                guard manifest.files.contains(where: { $0.path == meta && $0.kind == .resourceMeta }) else { throw .missingEntry(meta) }
                pairs.append((resources: r.path, meta: meta))
            }
            sources.append(Source(line: s, files: pairs))
        }
        for f in manifest.files where (f.kind == .resources || f.kind == .resourceMeta) && !directories.contains(f.sourceDirectory ?? "") {
            throw .badManifest("\(f.path) belongs to no listed source")
        }
        self.sources = sources

        let indexFile = try only(.cardIndex)
        var cards: [CardLine] = []
        for (n, line) in Self.lines(contents[indexFile.path] ?? []).enumerated() {
            let c: CardLine
            do { c = try CardLine(decoding: line) } catch { throw .badContent(entry: indexFile.path, line: n + 1, reason: error.description) }
            guard manifest.files.contains(where: { $0.path == c.file && $0.kind == .card }) else { throw .missingEntry(c.file) }
            cards.append(c)
        }
        guard cards.count == manifest.files.filter({ $0.kind == .card }).count else { throw .badManifest("card files and card lines differ in number") }
        self.cards = cards

        let samples = try only(.samples)
        samplesFile = samples.path
        var count = 0
        for (n, line) in Self.lines(contents[samples.path] ?? []).enumerated() {
            do { _ = try SampleLine.decode(line) } catch { throw .badContent(entry: samples.path, line: n + 1, reason: error.description) }
            count += 1
        }
        sampleCount = count
        // Resource lines are checked by ``resources(of:)`` as an import reads them; run it
        // over every source first (``checkResources()``) to refuse a bad export before writing.
    }

    /// The bytes of a listed file.
    public func file(_ path: String) throws(ArchiveError) -> [UInt8] {
        guard let e = zip.entry(named: path) else { throw .missingEntry(path) }
        return try zip.read(e)
    }

    /// The samples, checked as new samples are.
    public func samples() throws(ArchiveError) -> [QuantitySample] {
        var out: [QuantitySample] = []
        for (n, line) in Self.lines(try file(samplesFile)).enumerated() {
            do { out.append(try SampleLine.decode(line)) } catch {
                throw .badContent(entry: samplesFile, line: n + 1, reason: error.description)
            }
        }
        return out
    }

    /// One source's resources with their exact stored bytes and meta, in the order written.
    public func resources(of source: Source) throws(ArchiveError) -> [ExportedResource] {
        var out: [ExportedResource] = []
        for (path, metaPath) in source.files {
            let lines = Self.lines(try file(path))
            let metas = Self.lines(try file(metaPath))
            guard lines.count == metas.count else { throw .badContent(entry: metaPath, line: min(lines.count, metas.count) + 1, reason: "\(lines.count) resources, \(metas.count) meta lines") }
            for (n, (line, metaLine)) in Swift.zip(lines, metas).enumerated() {
                do {
                    let meta = try ResourceMeta(decoding: metaLine)
                    guard let bytes = LineBreaks.restore(line, lf: meta.lf, cr: meta.cr) else { throw ArchiveLineError("line breaks do not fit the resource line") }
                    let version = try FHIRVersion(versionString: meta.fhirVersion)
                    let value = try JSONReader().read(bytes)
                    guard let object = value.objectValue else { throw ArchiveLineError("not a JSON object") }
                    guard object["resourceType"]?.stringValue == meta.resourceType else { throw ArchiveLineError("resourceType differs from the meta line") }
                    guard !meta.id.isEmpty else { throw ArchiveLineError("empty id") }
                    let resource = FHIRResource(
                        parsed: object, resourceType: FHIRResourceType(meta.resourceType), identifier: meta.id, fhirVersion: version, data: Data(bytes),
                        sourceURL: meta.fullUrl.flatMap(URL.init(string:)))
                    out.append(ExportedResource(resource: resource, displayName: meta.displayName, fullUrl: meta.fullUrl))
                } catch let e as ArchiveLineError {
                    throw .badContent(entry: path, line: n + 1, reason: e.description)
                } catch {
                    throw .badContent(entry: path, line: n + 1, reason: "\(error)")
                }
            }
        }
        return out
    }

    /// Reads every source's resources once, so a bad line is found before anything is written.
    public func checkResources() throws(ArchiveError) {
        for s in sources { _ = try resources(of: s) }
    }

    /// Splits NDJSON into lines (a last line without a line feed counts; empty lines do not).
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init)
    }
}

/// A resource read from an export: the stored bytes, id and version, and the name the
/// exporting store showed for it.
public struct ExportedResource: Sendable {
    /// The resource as it was stored.
    public let resource: FHIRResource
    /// The display name the exporting store had computed.
    public let displayName: String
    /// Its Bundle entry's fullUrl, if any (what references in its Bundle used).
    public let fullUrl: String?
}
