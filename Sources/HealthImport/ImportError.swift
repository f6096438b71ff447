import CardScanning
import FHIR

/// Why a file could not be imported.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not exist or cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is larger than a single JSON document may be.
    case fileTooLarge(size: Int64, limit: Int)
    /// The content is not valid FHIR (or not valid JSON).
    case fhir(FHIRError)
    /// A line of an NDJSON file is not valid FHIR.
    case line(number: Int, error: FHIRError)
    /// The file is JSON but plainly not FHIR.
    case notFHIR
    /// The store refused the import.
    case store(String)
    /// A SMART Health Card input held no card: what the card-input reader found wrong.
    case cardInput(CardInputError)
    /// A SMART Health Card failed verification and `--allow-unverified` was not given.
    case cardNotVerified(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .fileTooLarge(let size, let limit): return "file is \(size) bytes; a JSON document may be at most \(limit) bytes"
        case .fhir(let e): return e.description
        case .line(let n, let e): return "line \(n): \(e.description)"
        case .notFHIR: return "not FHIR: the JSON has no resourceType"
        case .store(let m): return m
        case .cardInput(let e): return e.description
        case .cardNotVerified(let m): return "card not verified: \(m)"
        }
    }
}
