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
        // One pass over the bytes, without splitting into strings: every stored row's version
        // is read this way.
        var numbers = (0, 0, 0)
        var count = 0, digits = 0, value = 0
        for byte in versionString.utf8 {
            if byte == 0x2E {
                guard digits > 0, count < 2 else { throw FHIRError.invalidVersion(versionString) }
                Self.set(&numbers, count, value)
                (count, digits, value) = (count + 1, 0, 0)
            } else {
                guard byte >= 0x30, byte <= 0x39, digits < 6 else { throw FHIRError.invalidVersion(versionString) }
                value = value * 10 + Int(byte - 0x30)
                digits += 1
            }
        }
        guard digits > 0, count >= 1 else { throw FHIRError.invalidVersion(versionString) }
        Self.set(&numbers, count, value)
        self.init(major: numbers.0, minor: numbers.1, patch: numbers.2)
    }

    private static func set(_ numbers: inout (Int, Int, Int), _ index: Int, _ value: Int) {
        switch index {
        case 0: numbers.0 = value
        case 1: numbers.1 = value
        default: numbers.2 = value
        }
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
