import FHIR
import VerifiableRecords

/// Checks the elements the SMART Health Cards rules and FHIR R4 require of a card's bundle:
/// a `Bundle.type` FHIR defines, entries in a list, each entry's `fullUrl` being `resource:N`
/// with N its position, and at most one Patient.
///
/// Any `Bundle.type` is allowed (spec 1.3.0; the HL7 IPS example is a `document`), but it must be
/// one of FHIR's codes. Short positional `fullUrl`s are what every reference of a card resolves
/// to. A card speaks for one person, so a second Patient is an error (a verifier would show one
/// name for a card about two people); a card with no Patient is only a warning, because the
/// spec's own lab example 02 carries none.
public enum BundleStructureCheck {
    /// One broken requirement.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// `Bundle.type` is missing.
        case typeMissing
        /// `Bundle.type` is not a FHIR R4 bundle type code (its JSON text).
        case typeUnknown(String)
        /// `Bundle.entry` is not an array.
        case entriesNotAList
        /// Entry `entry` has no `fullUrl`.
        case fullUrlMissing(entry: Int)
        /// Entry `entry`'s `fullUrl` is `found` (its JSON text), not `resource:<entry>`.
        case fullUrlNotPositional(entry: Int, found: String)
        /// No entry is a Patient.
        case noPatient
        /// These entries are all Patients.
        case severalPatients(entries: [Int])

        /// Whether the problem makes the card invalid; only a missing Patient does not.
        public var isError: Bool { self != .noPatient }

        /// The verification code of this problem.
        public var code: VerificationCode {
            switch self {
            case .typeMissing, .typeUnknown: return .fhirBundleType
            case .entriesNotAList: return .fhirBundle
            case .fullUrlMissing, .fullUrlNotPositional: return .fhirFullUrl
            case .noPatient, .severalPatients: return .fhirPatient
            }
        }

        /// The verification error for it.
        public var issue: VerificationIssue { VerificationIssue(code, description) }

        public var description: String {
            switch self {
            case .typeMissing: return "Bundle.type is missing"
            case .typeUnknown(let t): return "Bundle.type \(t.prefix(40)) is not a FHIR R4 bundle type"
            case .entriesNotAList: return "Bundle.entry is not an array"
            case .fullUrlMissing(let n): return "entry \(n) has no fullUrl; it must be resource:\(n)"
            case let .fullUrlNotPositional(n, found): return "entry \(n) has fullUrl \(found.prefix(60)); it must be resource:\(n)"
            case .noPatient: return "the bundle holds no Patient"
            case .severalPatients(let entries): return "the bundle holds \(entries.count) Patients (entries \(entries.map(String.init).joined(separator: ", "))); a card is about one person"
            }
        }
    }

    /// The codes of FHIR R4's `bundle-type` value set (a required binding).
    public static let bundleTypes: Set<String> = [
        "document", "message", "transaction", "transaction-response", "batch", "batch-response", "history", "searchset", "collection",
    ]

    /// Every broken requirement, the first offending entry only for `fullUrl`.
    public static func check(_ t: JSONTape, bundle: Int) -> [Problem] {
        var problems: [Problem] = []
        if let type = t.member(bundle, "type") {
            if !(t.string(type).map(bundleTypes.contains) ?? false) { problems.append(.typeUnknown(text(t, type))) }
        } else {
            problems.append(.typeMissing)
        }
        guard let entries = t.member(bundle, "entry") else { return problems + [.noPatient] }
        guard t.kind(entries) == .array else { return problems + [.entriesNotAList] }
        var fullUrlProblem: Problem? = nil
        var patients: [Int] = []
        var n = 0
        t.forEachElement(entries) { entry in
            defer { n += 1 }
            // Entries that are not objects, or hold no resource, are reported by BundleMinimizationCheck.
            guard t.kind(entry) == .object else { return }
            if fullUrlProblem == nil {
                if let url = t.member(entry, "fullUrl") {
                    if t.string(url) != "resource:\(n)" { fullUrlProblem = .fullUrlNotPositional(entry: n, found: text(t, url)) }
                } else {
                    fullUrlProblem = .fullUrlMissing(entry: n)
                }
            }
            if let resource = t.member(entry, "resource"), let type = t.member(resource, "resourceType"), t.keyEquals(type, "Patient") {
                patients.append(n)
            }
        }
        if let fullUrlProblem { problems.append(fullUrlProblem) }
        if patients.isEmpty { problems.append(.noPatient) } else if patients.count > 1 { problems.append(.severalPatients(entries: patients)) }
        return problems
    }

    /// A value as its JSON text (strings without quotes).
    private static func text(_ t: JSONTape, _ i: Int) -> String {
        t.string(i) ?? String(decoding: t.bytes[t.byteRange(i)], as: UTF8.self)
    }
}
