/// A semantic FHIR version such as `4.0.1`, and the release it belongs to.
public struct FHIRVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The major version number: 4 in `4.0.1` (1 is DSTU2, 4 is R4).
    public let majorVersion: Int
    /// The minor version number.
    public let minorVersion: Int
    /// The patch version number; 0 when the text had none (`4.0`).
    public let patchVersion: Int

    /// Makes a version from its numbers.
    public init(major: Int, minor: Int, patch: Int) {
        self.majorVersion = major
        self.minorVersion = minor
        self.patchVersion = patch
    }

    /// Parses `major.minor.patch` (a missing patch reads as 0); throws on anything else.
    public init(versionString: String) throws(FHIRError) {
        let parts = versionString.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { throw FHIRError.invalidVersion(versionString) }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), part.count <= 6, let n = Int(part) else {
                throw FHIRError.invalidVersion(versionString)
            }
            numbers.append(n)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers.count > 2 ? numbers[2] : 0)
    }

    /// The release this version belongs to: 1.0.x is DSTU2, 4.0.x is R4.
    public var fhirRelease: FHIRRelease {
        switch (majorVersion, minorVersion) {
        case (1, 0): return .dstu2
        case (4, 0): return .r4
        default: return .unknown
        }
    }

    /// The text form, e.g. `4.0.1`.
    public var stringRepresentation: String { "\(majorVersion).\(minorVersion).\(patchVersion)" }

    public var description: String { stringRepresentation }

    /// The DSTU2 version HealthKit uses, 1.0.2.
    public static let primaryDSTU2 = FHIRVersion(major: 1, minor: 0, patch: 2)
    /// The R4 version HealthKit uses, 4.0.1.
    public static let primaryR4 = FHIRVersion(major: 4, minor: 0, patch: 1)

    /// The primary version of a release (R4 for an unknown release).
    public static func primary(for release: FHIRRelease) -> FHIRVersion {
        release == .dstu2 ? .primaryDSTU2 : .primaryR4
    }
}
