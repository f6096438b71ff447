import Foundation

/// Timing helpers: monotonic clock, medians and percentiles.
enum Measure {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `body` `runs` times and returns each run's seconds.
    static func seconds(runs: Int, _ body: () throws -> Void) rethrows -> [Double] {
        var out: [Double] = []
        for _ in 0..<runs {
            let t = now()
            try body()
            out.append(Double(now() - t) / 1e9)
        }
        return out
    }

    static func median(_ xs: [Double]) -> Double { percentile(xs, 0.5) }

    static func percentile(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return .nan }
        let k = min(s.count - 1, max(0, Int((Double(s.count) * p).rounded(.up)) - 1))
        return s[k]
    }
}

/// The shared test data folder beside the project root.
enum SharedData {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let c = dir.appendingPathComponent("shared")
            if FileManager.default.fileExists(atPath: c.appendingPathComponent("data").path) { return c }
            dir.deleteLastPathComponent()
        }
        fatalError("../shared not found")
    }()

    static func files(_ rel: String, _ ext: String) -> [URL] {
        let e = FileManager.default.enumerator(at: root.appendingPathComponent(rel), includingPropertiesForKeys: nil)
        var out: [URL] = []
        while let u = e?.nextObject() as? URL { if u.pathExtension == ext, u.lastPathComponent != "log.ndjson" { out.append(u) } }
        return out.sorted { $0.path < $1.path }
    }
}

func fmt(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }
