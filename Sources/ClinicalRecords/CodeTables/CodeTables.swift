import Foundation

/// The code tables the product ships: CDC CVX names, CVX → vaccine groups and antigens, LOINC names.
///
/// Generated from `../shared/data/codes` by `Scripts/generate-code-tables.py` into this target's
/// resources. LOINC names carry the LOINC notice (`LOINC_NOTICE.txt`).
public struct CodeTables: Sendable {
    /// A CVX vaccine code's names and status.
    public struct Vaccine: Sendable, Hashable {
        /// The CVX code as CDC writes it (`03`).
        public let cvx: String
        /// CDC's short description, e.g. "MMR".
        public let shortName: String
        /// CDC's full vaccine name.
        public let fullName: String
        /// Active, Inactive, Non-US, Never Active.
        public let status: String
    }

    /// An antigen a vaccine covers, with the ages the association holds for (CDSi).
    public struct AntigenAssociation: Sendable, Hashable {
        /// The antigen, e.g. "Measles".
        public let antigen: String
        /// The age from which the association holds, as CDSi writes it (e.g. "50 years"), if bounded.
        public let beginAge: String?
        /// The age until which the association holds, if bounded.
        public let endAge: String?
    }

    /// A LOINC name and where it comes from.
    public struct LOINCName: Sendable, Hashable {
        /// The name to show for the code: LOINC's Long Common Name, or the display real exports use (see ``isOfficial``).
        public let name: String
        /// Whether the name is LOINC's own Long Common Name (otherwise the display real exports use).
        public let isOfficial: Bool
    }

    /// CVX code (leading zeros removed) → vaccine.
    public let vaccines: [String: Vaccine]
    /// CVX code (leading zeros removed) → CDC vaccine groups.
    public let vaccineGroups: [String: [String]]
    /// CVX code (leading zeros removed) → CDSi antigens.
    public let antigens: [String: [AntigenAssociation]]
    /// LOINC code → name.
    public let loincNames: [String: LOINCName]
    /// LOINC codes of the FHIR vital-signs value set.
    public let vitalSignLOINCCodes: Set<String>

    /// The tables shipped with the package.
    public static let shipped: CodeTables = CodeTables(bundle: .module)

    /// Loads the tables from a bundle's resources (missing tables load empty).
    public init(bundle: Bundle) {
        func rows(_ name: String) -> [[String]] {
            guard let url = bundle.url(forResource: name, withExtension: "tsv", subdirectory: "Resources")
                ?? bundle.url(forResource: name, withExtension: "tsv"),
                let text = try? String(contentsOf: url, encoding: .utf8)
            else { return [] }
            // Split as bytes: splitting a String walks grapheme clusters, which made loading
            // the tables (at a command's first classification) take milliseconds. The files
            // have no CR, and tab and newline never join a cluster, so the rows are the same.
            return Array(text.utf8).split(separator: 0x0A).dropFirst().map { line in
                line.split(separator: 0x09, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            }
        }
        var vaccines: [String: Vaccine] = [:]
        for r in rows("cvx") where r.count >= 4 {
            vaccines[CodeTables.normalizedCVX(r[0])] = Vaccine(cvx: r[0], shortName: r[1], fullName: r[2], status: r[3])
        }
        var groups: [String: [String]] = [:]
        for r in rows("cvx-vaccine-groups") where r.count >= 2 && !r[1].isEmpty {
            groups[CodeTables.normalizedCVX(r[0]), default: []].append(r[1])
        }
        var antigens: [String: [AntigenAssociation]] = [:]
        for r in rows("cvx-antigens") where r.count >= 4 {
            antigens[CodeTables.normalizedCVX(r[0]), default: []].append(
                AntigenAssociation(antigen: r[1], beginAge: r[2].isEmpty ? nil : r[2], endAge: r[3].isEmpty ? nil : r[3]))
        }
        var loinc: [String: LOINCName] = [:]
        for r in rows("loinc-names") where r.count >= 3 {
            loinc[r[0]] = LOINCName(name: r[1], isOfficial: r[2] == "official")
        }
        self.vaccines = vaccines
        self.vaccineGroups = groups
        self.antigens = antigens
        self.loincNames = loinc
        self.vitalSignLOINCCodes = Set(rows("loinc-vital-signs").compactMap(\.first))
    }

    /// A CVX code without leading zeros, so `"03"` and `"3"` match (both appear in real data).
    public static func normalizedCVX(_ code: String) -> String {
        let u = code.utf8
        // Fast path: plain digits without a leading zero need no work.
        if let first = u.first, first != 0x30, u.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return code }
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        let stripped = trimmed.drop { $0 == "0" }
        return stripped.isEmpty ? (trimmed.isEmpty ? "" : "0") : String(stripped)
    }

    /// The vaccine for a CVX code.
    public func vaccine(cvx: String) -> Vaccine? { vaccines[CodeTables.normalizedCVX(cvx)] }

    /// The text of the LOINC notice that must accompany LOINC names.
    public static var loincNotice: String {
        guard let url = Bundle.module.url(forResource: "LOINC_NOTICE", withExtension: "txt", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: "LOINC_NOTICE", withExtension: "txt")
        else { return "This material contains content from LOINC (http://loinc.org)." }
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }
}
