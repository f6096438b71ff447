import CardScanning
import FHIR
import Foundation
import QRCode
import SmartHealthCards

/// Reading a version-18 card QR code from a ~600×600 px PNG: our reader next to zbarimg, same file, same run.
enum QRBenchmark {
    static func run() throws {
        let jws = String(decoding: try Data(contentsOf: SharedData.root.appendingPathComponent("vectors/shc-spec/example-00-d-jws.txt")), as: UTF8.self)
        let code = try CardQRCode.encode(jws: jws)
        // 89 modules + 2×4 quiet zone at 6 px = 582 px; 7 px would be 679.
        let png = try code.pngData(moduleSize: 6, quietZone: 5)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hr-bench-v18.png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let image = try PNGDecoder.decode(png)
        let expected = HealthCardQRText.encode(jws: jws)
        let n = 200
        for _ in 0..<10 {
            let text = try QRReader.read(png: png).first?.text
            precondition(text == expected)
        }
        var withPNG: [Double] = []
        var pixelsOnly: [Double] = []
        for _ in 0..<n {
            var t = Measure.now()
            let text = try QRReader.read(png: png).first?.text
            precondition(text == expected)
            withPNG.append(Double(Measure.now() - t) / 1e6)
            t = Measure.now()
            precondition(QRReader.read(image: image).first?.text == expected)
            pixelsOnly.append(Double(Measure.now() - t) / 1e6)
        }
        print("## Reading a version-18 card QR code (\(image.width)×\(image.height) px PNG)\n")
        print("| reader | ms per image (median) | p99 ms |")
        print("|---|---|---|")
        print("| ours: PNG decode + detect + decode | \(fmt(Measure.median(withPNG), 2)) | \(fmt(Measure.percentile(withPNG, 0.99), 2)) |")
        print("| ours: detect + decode from pixels | \(fmt(Measure.median(pixelsOnly), 2)) | \(fmt(Measure.percentile(pixelsOnly, 0.99), 2)) |")
        if let zbar = zbarTime(file: file, expected: expected) {
            print("| zbarimg 0.23.92 (same file, \(zbar.count) reads in one process; startup amortized) | \(fmt(zbar.perImage, 2)) | |")
            print("\nzbarimg ÷ ours (PNG included): \(fmt(zbar.perImage / Measure.median(withPNG), 1))×")
        } else {
            print("| zbarimg | not installed (apt-get install zbar-tools) | |")
        }
        print("")
        try issueAndEncode(jws: jws)
    }

    /// Issuing cards and drawing their QR codes.
    static func issueAndEncode(jws: String) throws {
        let bundle = try FHIR.JSONReader().read(Data(contentsOf: SharedData.root.appendingPathComponent("vectors/shc-spec/fixtures/covid-vaccines-bundle.json"))).objectValue!
        let issuer = try HealthCardIssuer(issuer: "https://issuer.example.org", key: IssuerKey.generate())
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        func rate(_ body: () throws -> Void) rethrows -> Double {
            for _ in 0..<20 { try body() }
            var n = 0
            let start = Measure.now()
            while Measure.now() - start < 2_000_000_000 {
                try body()
                n += 1
            }
            return Double(n) / (Double(Measure.now() - start) / 1e9)
        }
        let issue = try rate { _ = try issuer.issue(bundle: bundle, notBefore: date) }
        let encode = try rate { _ = try CardQRCode.encode(jws: jws) }
        let png = try rate { _ = try CardQRCode.encode(jws: jws).pngData(moduleSize: 4) }
        print("## Issuing (one core, 2 s each)\n")
        print("| operation | per second |")
        print("|---|---|")
        print("| issue a card (minimize + payload + raw DEFLATE level 9 + ES256) | \(fmt(issue, 0)) |")
        print("| QR encode, version 18 (segments, Reed–Solomon, 8 masks scored) | \(fmt(encode, 0)) |")
        print("| QR encode + PNG at 4 px modules | \(fmt(png, 0)) |")
        print("")
    }

    /// Milliseconds per image for zbarimg reading the same file many times in one process.
    static func zbarTime(file: URL, expected: String) -> (perImage: Double, count: Int)? {
        guard let zbar = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        func run(_ count: Int) -> Double? {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: zbar)
            p.arguments = ["--raw", "-q"] + Array(repeating: file.path, count: count)
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            let t = Measure.now()
            guard (try? p.run()) != nil else { return nil }
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let ms = Double(Measure.now() - t) / 1e6
            guard String(decoding: data, as: UTF8.self).split(separator: "\n").allSatisfy({ $0 == expected }) else { return nil }
            return ms
        }
        // The difference between 51 reads and 1 read cancels process startup.
        guard let one = run(1), let many = run(51) else { return nil }
        return ((many - one) / 50, 50)
    }
}
