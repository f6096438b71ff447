import Foundation

/// Locates the shared test data folder by walking up from this source file until a
/// directory holding `shared/vectors` appears, so fixtures are never copied into the package.
enum Fixtures {
    static let sharedDirectory: URL? = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("shared/vectors")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return directory.appendingPathComponent("shared")
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "fixture not found: \(path) (no shared/vectors above \(#filePath))" }
    }

    /// URL of `relativePath` inside `shared/vectors`.
    static func url(_ relativePath: String) throws -> URL {
        guard let shared = sharedDirectory else { throw Missing(path: relativePath) }
        let url = shared.appendingPathComponent("vectors").appendingPathComponent(relativePath)
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
