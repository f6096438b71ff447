import Foundation
import SmartHealthLinks
import TestSupport

/// The IG's SMART Health Link examples in `Tests/Fixtures/vectors/shl` (HL7
/// `smart-health-cards-and-links` at a966d22, CC0; see that folder's README.md), and the SMART
/// Health Card file the spec's encryption example encrypts.
enum SHLVectors {
    /// The folder, laid out as in the shared corpus.
    static let folder = "vectors/shl/"

    /// A file's bytes.
    static func data(_ name: String) throws -> Data { try FixtureFiles.data(folder + name) }

    /// A file as text without surrounding whitespace (some end with a newline).
    static func text(_ name: String) throws -> String {
        try FixtureFiles.text(folder + name).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The key of every example: `rxTgYlOaKJPFtcEd0qcceN8wEU4p94SqAwIWQe6uX7Q`.
    static func key() throws -> SHLKey { try SHLKey(base64url: text("spec-example-key.txt")) }

    /// `example-00-e-file.smart-health-card`, which the spec's example JWE decrypts to.
    static func specExampleCardFile() throws -> Data {
        try FixtureFiles.data("vectors/shc-spec/example-00-e-file.smart-health-card")
    }
}
