import Foundation

/// The repository's test data (`Tests/Fixtures`, a subset of the shared corpus laid out as it is:
/// `vectors/…`), found from this source file. This target does not link TestSupport.
enum Fixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "fixture not found: \(path)" }
    }

    /// URL of `relativePath` inside `Tests/Fixtures/vectors`.
    static func url(_ relativePath: String) throws -> URL {
        let url = root.appendingPathComponent("vectors").appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else { throw Missing(path: url.path) }
        return url
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }
}
