import ArgumentParser
import CardScanning
import FHIR
import Foundation
import QRCode
import SmartHealthCards

struct QRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr", abstract: "Draw and read QR codes (SMART Health Card QR codes in particular).",
        subcommands: [QREncodeCommand.self, QRTextCommand.self, QRDecodeCommand.self])
}

/// The error-correction level as typed on the command line (L, M, Q, H; any case).
enum QRLevelArgument: String, ExpressibleByArgument, CaseIterable {
    case L, M, Q, H

    init?(argument: String) { self.init(rawValue: argument.uppercased()) }

    var level: QRErrorCorrectionLevel {
        switch self {
        case .L: return .L
        case .M: return .M
        case .Q: return .Q
        case .H: return .H
        }
    }
}

struct QREncodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode", abstract: "Draw a QR code as PNG or SVG.",
        discussion: "With --shc, the card's shc:/ text is drawn as two segments (byte shc:/, then numeric), as the spec requires.")

    @Option(help: ArgumentHelp("A file holding a compact JWS.", valueName: "JWS_FILE"))
    var shc: String?

    @Option(help: "Text to encode instead.")
    var text: String?

    @Option(help: "Error correction: L, M, Q or H.")
    var level: QRLevelArgument = .L

    @Option(help: ArgumentHelp("Write a PNG here.", valueName: "FILE"))
    var png: String?

    @Option(help: ArgumentHelp("Write an SVG here.", valueName: "FILE"))
    var svg: String?

    @Option(name: .customLong("module-size"), help: "Pixels per module (1–100).")
    var moduleSize: Int = 4

    func validate() throws {
        if (shc == nil) == (text == nil) { throw ValidationError("give exactly one of --shc or --text") }
        if png == nil && svg == nil { throw ValidationError("give --png FILE or --svg FILE") }
        if !(1...100).contains(moduleSize) { throw ValidationError("--module-size must be between 1 and 100") }
    }

    func run() async throws {
        let code: QRMatrix
        do {
            if let shc {
                let jws = String(decoding: try KeyFiles.read(shc, "JWS"), as: UTF8.self)
                _ = try CompactJWS(jws)
                code = try CardQRCode.encode(jws: jws, level: level.level)
            } else {
                code = try CardQRCode.encode(text!, level: level.level)
            }
        } catch let e as CommandFailure { throw e } catch { throw CommandFailure.usage("\(error)") }
        try QRFiles.write(code, png: png, svg: svg, moduleSize: moduleSize)
        FileHandle.standardError.write(Data("QR version \(code.version.number), level \(code.level), mask \(code.mask), \(code.size)×\(code.size) modules\n".utf8))
    }
}

struct QRTextCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "text", abstract: "Print a card's shc:/ numeric QR text.")

    @Argument(help: "A file holding a compact JWS.")
    var jwsFile: String

    func run() async throws {
        let jws = String(decoding: try KeyFiles.read(jwsFile, "JWS"), as: UTF8.self)
        do { _ = try CompactJWS(jws) } catch { throw CommandFailure.usage("\(jwsFile): \(error)") }
        guard jws.utf8.count <= HealthCardQRText.maxSingleJWSLength else {
            throw CommandFailure.usage(IssuingError.tooLargeForQR(jwsLength: jws.utf8.count, limit: HealthCardQRText.maxSingleJWSLength).description)
        }
        print(HealthCardQRText.encode(jws: jws), terminator: "")
    }
}

struct QRDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode", abstract: "Read every QR code in PNG images and JPEG photos.",
        discussion: "Prints, per code: its text, version, level, segments, corrected errors and position. Exit 1 when an image holds no QR code.")

    @Argument(help: "PNG or JPEG images.")
    var images: [String]

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        var found: [JSONValue] = []
        var empty: [String] = []
        for path in images {
            let data = try KeyFiles.read(path, "image")
            let symbols: [CardImageReader.Symbol]
            do { symbols = try CardImageReader.symbols(image: data, origin: path) } catch { throw CommandFailure.usage("\(path): \(error)") }
            if symbols.isEmpty { empty.append(path) }
            for s in symbols {
                let q = s.decoded
                if json {
                    found.append(Self.json(q, image: path))
                } else {
                    let segments = q.segments.map { "\($0.mode)(\($0.bytes.count))" }.joined(separator: " + ")
                    print("\(path): version \(q.version.number), level \(q.level), \(segments), \(q.correctedErrors) corrected, at \(q.position.topLeft)")
                    print(q.text)
                }
            }
        }
        if json { JSONOutput.print(.array(found)) }
        for path in empty { FileHandle.standardError.write(Data("\(path): no QR code found\n".utf8)) }
        if !empty.isEmpty { throw ExitCode(1) }
    }

    static func json(_ q: DecodedQR, image: String) -> JSONValue {
        func point(_ p: QRPoint) -> JSONValue {
            .object(JSONObject(["x": .number(JSONNumber(uncheckedText: String(format: "%.1f", p.x))), "y": .number(JSONNumber(uncheckedText: String(format: "%.1f", p.y)))]))
        }
        return .object(JSONObject([
            JSONMember("image", .string(image)),
            JSONMember("text", .string(q.text)),
            JSONMember("version", JSONOutput.int(q.version.number)),
            JSONMember("level", .string("\(q.level)")),
            JSONMember("mask", JSONOutput.int(q.mask)),
            JSONMember("segments", .array(q.segments.map { s in
                .object(JSONObject(["mode": .string("\(s.mode)"), "length": JSONOutput.int(s.bytes.count)]))
            })),
            JSONMember("correctedErrors", JSONOutput.int(q.correctedErrors)),
            JSONMember("position", .object(JSONObject([
                "topLeft": point(q.position.topLeft), "topRight": point(q.position.topRight),
                "bottomRight": point(q.position.bottomRight), "bottomLeft": point(q.position.bottomLeft),
            ]))),
        ]))
    }
}
