import Foundation

/// The repository's own test data: `Tests/Fixtures`, a curated subset of the shared corpus (each
/// folder names its source, version and licence). Always present, so a test that reads a named
/// file reads it from here and passes on a bare clone exactly as it does on CI.
public enum FixtureFiles {
    /// `Tests/Fixtures` in this checkout.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A path inside `Tests/Fixtures`, laid out as in the shared corpus (`vectors/…`, `data/…`).
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a fixture file.
    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

    /// A fixture file as UTF-8 text.
    public static func text(_ relative: String) throws -> String { String(decoding: try data(relative), as: UTF8.self) }
}

/// The full shared test corpus (`../shared` beside the checkout), when this machine has it.
///
/// `HEALTHRECORDS_SHARED` overrides the search: a folder holding `vectors/` and `data/`, or `none`
/// to run as a bare clone does even where `../shared` exists.
public enum FullCorpus {
    /// The corpus folder, or `nil` on a bare clone.
    public static let root: URL? = {
        if let named = ProcessInfo.processInfo.environment["HEALTHRECORDS_SHARED"], !named.isEmpty {
            if named == "none" { return nil }
            let url = URL(fileURLWithPath: named)
            return FileManager.default.fileExists(atPath: url.appendingPathComponent("vectors").path) ? url : nil
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("vectors").path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return nil
    }()

    /// Whether the full corpus is here.
    public static var isPresent: Bool { root != nil }
}

/// The widest test data at hand: the full corpus when present, else the repository's fixtures,
/// which mirror its layout. For tests that walk a folder and hold for any subset of it.
public enum Corpus {
    /// The folder everything below resolves against.
    public static var root: URL { FullCorpus.root ?? FixtureFiles.root }

    /// Whether this is the full corpus (not the repository's subset).
    public static var isFull: Bool { FullCorpus.isPresent }

    /// A path inside the corpus.
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a file inside the corpus.
    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

    /// Files under a folder of the corpus with one of the extensions, sorted.
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
