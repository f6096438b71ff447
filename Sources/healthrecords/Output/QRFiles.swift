import Foundation
import QRCode

/// Writing a QR code to the files a command was given, all or none.
enum QRFiles {
    /// Writes `code` as PNG and/or SVG; on any failure neither file is left behind.
    static func write(_ code: QRMatrix, png: String?, svg: String?, moduleSize: Int) throws {
        var files = OutputFiles()
        do {
            if let png { try files.add(try code.pngData(moduleSize: moduleSize), to: png) }
            if let svg { try files.add(Data(try code.svgString(moduleSize: moduleSize).utf8), to: svg) }
            try files.commit()
        } catch let e as CommandFailure {
            files.discard()
            throw e
        } catch {
            files.discard()
            throw CommandFailure.usage("\(error)")
        }
    }
}
