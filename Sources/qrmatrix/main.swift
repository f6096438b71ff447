import Foundation
import QRCode

/// `qrmatrix OUTDIR [--full]` writes a matrix of QR PNGs plus the expected text of each (with
/// `--full`, every version 1–40 × level × module size 2–8);
/// `qrmatrix decode FILE...` prints what our reader finds in each PNG;
/// `qrmatrix bench FILE [N]` times N reads of one PNG, from pixels and from the PNG bytes.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// Text for a sample: mixes modes and lengths so segments of every kind get exercised.
func sampleText(version: Int, level: QRErrorCorrectionLevel, moduleSize: Int) -> [QRSegment] {
    // The largest payload of this kind that still fits the version, so each sample fills
    // its symbol (and so could not fit the version before it).
    func fits(_ bytes: Int) -> Bool {
        (try? QREncoder.encode(segments: segments(version: version, level: level, moduleSize: moduleSize, targetBytes: bytes),
                               level: level, maxVersion: version, mask: 0)) != nil
    }
    var low = 1, high = QRVersion(version)!.dataCodewordCount(level: level) * 2
    while low < high {
        let mid = (low + high + 1) / 2
        if fits(mid) { low = mid } else { high = mid - 1 }
    }
    return segments(version: version, level: level, moduleSize: moduleSize, targetBytes: low)
}

func segments(version: Int, level: QRErrorCorrectionLevel, moduleSize: Int, targetBytes: Int) -> [QRSegment] {
    switch (version + moduleSize) % 3 {
    case 0:
        let digits = String((0..<(targetBytes * 2)).map { Character(String(($0 * 7 + version) % 10)) })
        return targetBytes >= 12 ? [.byte("shc:/"), try! .numeric(digits)] : [try! .numeric(digits)]
    case 1:
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
        let text = String((0..<(targetBytes * 8 / 6)).map { alphabet[($0 * 11 + version) % alphabet.count] })
        return [try! .alphanumeric(text)]
    default:
        let words = ["health", "record", "vaccine", "naïve", "café", "QR", "zbar", "swift"]
        var text = targetBytes >= 24 ? "v\(version)-\(level)-m\(moduleSize):" : ""
        var i = 0
        while text.utf8.count < targetBytes - 8 { text += " " + words[i % words.count]; i += 1 }
        return QRSegment.segments(for: text.isEmpty ? "ok" : text)
    }
}

func expectedText(_ segments: [QRSegment]) -> String {
    segments.map { String(decoding: $0.data, as: UTF8.self) }.joined()
}

let args = CommandLine.arguments.dropFirst()
guard let first = args.first else { fail("usage: qrmatrix OUTDIR [--full] | qrmatrix decode FILE... | qrmatrix bench FILE [N]") }

switch first {
case "decode":
    for path in args.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        do {
            let results = try QRReader.read(png: data)
            if results.isEmpty { fail("\(path): no QR code found") }
            for r in results { print(r.text) }
        } catch {
            fail("\(path): \(error)")
        }
    }
case "bench":
    guard let path = args.dropFirst().first, let data = FileManager.default.contents(atPath: path) else { fail("bench needs a PNG file") }
    let runs = args.count > 2 ? Int(args[args.startIndex + 2]) ?? 20 : 20
    let image = try! PNGDecoder.decode(data)
    _ = QRReader.read(image: image)  // warm up
    let clock = ContinuousClock()
    var found = 0
    let elapsed = clock.measure {
        for _ in 0..<runs { found += QRReader.read(image: image).count }
    }
    let withPNG = clock.measure {
        for _ in 0..<runs { found += ((try? QRReader.read(png: data)) ?? []).count }
    }
    print("\(image.width)x\(image.height): \(runs) reads, \(found / 2) codes each pass; read(image:) \(elapsed / runs), read(png:) incl. PNG decode \(withPNG / runs)")
default:
    let outDirectory = URL(fileURLWithPath: first)
    try? FileManager.default.createDirectory(at: outDirectory, withIntermediateDirectories: true)
    var jobs: [(version: Int, level: QRErrorCorrectionLevel, moduleSize: Int)] = []
    if args.contains("--full") {
        // The whole matrix: versions 1–40 × L/M/Q/H × module sizes 2–8.
        for version in 1...40 {
            for level in QRErrorCorrectionLevel.allCases {
                for moduleSize in 2...8 { jobs.append((version, level, moduleSize)) }
            }
        }
    }
    for version in [1, 10, 18, 22, 40] where jobs.isEmpty {
        for level in [QRErrorCorrectionLevel.L, .H] {
            for moduleSize in 2...8 { jobs.append((version, level, moduleSize)) }
        }
    }
    // A sample of the full 1–40 × L/M/Q/H matrix: every version at every level once,
    // module size cycling through 2–8.
    for version in 1...40 where jobs.count < 1120 {
        for level in QRErrorCorrectionLevel.allCases {
            let moduleSize = 2 + (version + level.rawValue) % 7
            if !jobs.contains(where: { $0 == (version, level, moduleSize) }) { jobs.append((version, level, moduleSize)) }
        }
    }
    for job in jobs {
        let segments = sampleText(version: job.version, level: job.level, moduleSize: job.moduleSize)
        do {
            // The sample nearly fills the version; where a word boundary leaves it a little short,
            // the version is still the one the matrix asks for.
            let matrix = try QREncoder.encode(segments: segments, level: job.level, minVersion: job.version, maxVersion: job.version)
            let name = String(format: "v%02d-%@-m%d", job.version, job.level.description, job.moduleSize)
            try matrix.pngData(moduleSize: job.moduleSize).write(to: outDirectory.appendingPathComponent(name + ".png"))
            try Data(expectedText(segments).utf8).write(to: outDirectory.appendingPathComponent(name + ".txt"))
        } catch {
            fail("v\(job.version) \(job.level) m\(job.moduleSize): \(error)")
        }
    }
    print("wrote \(jobs.count) PNGs to \(outDirectory.path)")
}
