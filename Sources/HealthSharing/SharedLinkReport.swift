import HealthImport

/// What importing the files behind a SMART Health Link did, file by file.
public struct SharedLinkReport: Sendable {
    /// What became of one file.
    public enum Outcome: Sendable {
        /// FHIR content, imported as one file is (all of it or nothing).
        case records(FileImportResult)
        /// SMART Health Cards, each checked and stored when valid.
        case cards([CardImportResult])
        /// An API access grant, kept as a provider connection with the token it holds (`sync`
        /// downloads from it).
        case connected(providerID: String, fhirBase: String)
        /// A file this receiver does not import (an API access grant it was not asked to connect,
        /// an unknown type).
        case skipped(reason: String)
        /// A file that could not be read as its type says (not JSON, no cards in it…).
        case failed(reason: String)
    }

    /// One file and what became of it.
    public struct File: Sendable {
        /// Its place in the manifest.
        public let index: Int
        /// Its content type, when known.
        public let contentType: String?
        /// What became of it.
        public let outcome: Outcome
    }

    /// Every file, in the manifest's order.
    public var files: [File] = []

    /// Whether nothing failed: every FHIR file imported and every card valid and stored (or
    /// stored before).
    public var succeeded: Bool {
        files.allSatisfy { file in
            switch file.outcome {
            case .records(let result): return result.status == .imported
            case .cards(let cards): return !cards.isEmpty && cards.allSatisfy { $0.card.isValid }
            case .connected, .skipped: return true
            case .failed: return false
            }
        }
    }
}
