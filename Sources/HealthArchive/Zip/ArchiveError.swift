/// Why a zip archive or an export inside one was refused. Nothing is imported from an archive
/// that fails any of these checks.
public enum ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The archive could not be read or written.
    case io(path: String, reason: String)
    /// The bytes are not a zip archive (no end-of-central-directory record).
    case notAZip
    /// A structure of the archive is damaged or inconsistent (where, and what is wrong).
    case malformed(String)
    /// A zip feature the export does not use and the reader does not take (ZIP64, encryption,
    /// multi-disk archives, compression methods other than stored and DEFLATE).
    case unsupported(String)
    /// An entry's name could escape the folder it is read into, or is not a plain relative path.
    case unsafeName(String)
    /// Two entries have the same name.
    case duplicateName(String)
    /// An archive or entry is larger than the reader's limits allow (a zip bomb, or a real
    /// archive beyond the limits): what was too large, its size and the limit.
    case tooLarge(what: String, size: Int, limit: Int)
    /// Entries' data overlap (a trick zip bombs use to repeat one compressed stream).
    case overlappingEntries(String)
    /// An entry's data does not inflate (the DEFLATE error's text).
    case badCompressedData(entry: String, reason: String)
    /// An entry's CRC-32 does not match its data.
    case crcMismatch(entry: String)
    /// An entry inflated to another size than its header says.
    case sizeMismatch(entry: String, declared: Int, actual: Int)
    /// The archive is a zip but not a HealthRecords export: it has no `manifest.json`.
    case missingManifest
    /// The manifest cannot be read, or names a format this version does not know.
    case badManifest(String)
    /// A file's SHA-256 or size differs from the manifest's.
    case hashMismatch(entry: String)
    /// A file the manifest lists is missing from the archive.
    case missingEntry(String)
    /// The archive holds a file the manifest does not list.
    case unlistedEntry(String)
    /// A line of an export file is not what the format says (file, 1-based line, what is wrong).
    case badContent(entry: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .io(let path, let reason): return "cannot read or write \(path): \(reason)"
        case .notAZip: return "not a zip archive"
        case .malformed(let m): return "damaged zip archive: \(m)"
        case .unsupported(let m): return "unsupported zip archive: \(m)"
        case .unsafeName(let n): return "unsafe entry name in zip archive: \(n.debugDescription)"
        case .duplicateName(let n): return "entry \(n) appears twice in the zip archive"
        case .tooLarge(let what, let size, let limit): return "\(what) is too large: \(size) bytes (limit \(limit))"
        case .overlappingEntries(let n): return "zip entries overlap at \(n)"
        case .badCompressedData(let entry, let reason): return "\(entry): compressed data is damaged: \(reason)"
        case .crcMismatch(let entry): return "\(entry): CRC-32 does not match its data"
        case .sizeMismatch(let entry, let declared, let actual): return "\(entry): inflated to \(actual) bytes, header says \(declared)"
        case .missingManifest: return "not a HealthRecords export: the zip archive has no manifest.json"
        case .badManifest(let m): return "bad export manifest: \(m)"
        case .hashMismatch(let entry): return "\(entry): SHA-256 or size differs from the manifest (the file was changed or damaged)"
        case .missingEntry(let n): return "the manifest lists \(n), which the archive does not hold"
        case .unlistedEntry(let n): return "the archive holds \(n), which the manifest does not list"
        case .badContent(let entry, let line, let reason): return "\(entry) line \(line): \(reason)"
        }
    }
}
