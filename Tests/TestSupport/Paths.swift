import Foundation

/// Finds the shared test data (`../shared` beside the project root) without copying it.
public enum Shared {
    /// The `shared` folder: the first ancestor of this file with a `shared/vectors` sibling.
    public static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("vectors").path) { return candidate }
            dir.deleteLastPathComponent()
        }
        fatalError("the shared test data folder (../shared) was not found above \(#filePath)")
    }()

    /// A path inside `shared`.
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a file inside `shared`.
    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

    /// Files under a folder of `shared` with one of the extensions, sorted.
    public static func files(_ relative: String, extensions: Set<String>) -> [URL] {
        let base = url(relative)
        guard let e = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var out: [URL] = []
        for case let u as URL in e where extensions.contains(u.pathExtension.lowercased()) { out.append(u) }
        return out.sorted { $0.path < $1.path }
    }
}

/// A temporary folder removed when the value goes away.
public final class TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Makes a new empty folder under the system temporary folder.
    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("healthrecords-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes a file inside the folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    /// Writes a file inside the folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let u = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: u)
        return u.path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
