import HealthStoreCore

/// What happened to one file.
public struct FileImportResult: Sendable, Equatable {
    /// The file's outcome.
    public enum Status: String, Sendable, Equatable, Codable {
        /// Everything in the file landed.
        case imported
        /// Valid JSON that is plainly not FHIR, found while walking a folder.
        case skipped
        /// Nothing from the file landed.
        case failed
    }

    /// The file's path as given or found.
    public let path: String
    /// Whether the file landed whole, was skipped, or failed; a file never lands in part.
    public let status: Status
    /// The counts (all zero unless imported).
    public let outcome: ImportOutcome
    /// The source the file was imported into.
    public let source: String?
    /// Why it failed or was skipped.
    public let error: ImportError?
    /// The file's size in bytes.
    public let bytes: Int64
}

/// What an import of several paths did, file by file and in total.
public struct ImportReport: Sendable {
    /// Every file, in the order of the paths given (a folder's files in sorted path order at the
    /// folder's place), so a report reads against the command that made it.
    public var files: [FileImportResult] = []

    /// Makes an empty report; ``RecordImporter/importPaths(_:progress:)`` appends one result per file.
    public init() {}

    /// Counts over the imported files.
    public var totals: ImportOutcome {
        var t = ImportOutcome()
        for f in files where f.status == .imported { t += f.outcome }
        return t
    }

    /// How many files failed; any failure makes ``succeeded`` false.
    public var failed: Int { files.filter { $0.status == .failed }.count }
    /// How many files were skipped as plainly not FHIR (only files found in folders are skipped).
    public var skipped: Int { files.filter { $0.status == .skipped }.count }
    /// Whether every file imported or was skipped.
    public var succeeded: Bool { failed == 0 }
}

/// How far a long import has come.
public struct ImportProgress: Sendable {
    /// Files finished so far, whatever their status; a batch of card files finishes together.
    public let filesDone: Int
    /// Readable files found under all the paths; paths that could not be read are not counted.
    public let filesTotal: Int
    /// Sum of ``FileImportResult/bytes`` over the files finished so far.
    public let bytesDone: Int64
    /// Size of every file counted in ``filesTotal``, known before the first file lands.
    public let bytesTotal: Int64
    /// The result that prompted this report (one result for a batch of card files read together).
    public let lastFile: FileImportResult
}
