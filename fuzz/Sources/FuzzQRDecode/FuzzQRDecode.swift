import Foundation
import QRCode

/// The QR detector and decoder over arbitrary pixels, and the module-grid decoder over arbitrary
/// grids. One path per input, so each execution stays cheap enough for a 10-million-run campaign:
/// a PNG (by its signature) goes through the image path; otherwise the first byte chooses raw
/// pixels or a module grid.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count > 2 else { return 0 }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
        // The path images take, under caps small enough that a fuzzed header declaring a large
        // image costs little: the limit checks are exercised, not the detector's time on a megapixel.
        _ = try? QRReader.read(png: Data(bytes), limits: PNGDecoder.Limits(maxWidth: 320, maxHeight: 320, maxPixels: 1 << 16, maxDecompressedBytes: 1 << 18))
    } else if bytes[0] & 1 == 0 {
        // Raw pixels: the second byte picks a width.
        let width = 16 + Int(bytes[1]) % 112
        let height = (bytes.count - 2) / width
        if height >= 16, let image = try? GrayImage(width: width, height: height, pixels: Array(bytes[2..<(2 + width * height)])) {
            _ = QRReader.read(image: image)
        }
    } else {
        // A module grid of a valid size (versions 1, 2 or 7), bits taken cyclically from the rest.
        let version = [1, 2, 7][Int(bytes[1]) % 3]
        let side = 17 + 4 * version
        let body = bytes[2...]
        var modules = [Bool](repeating: false, count: side * side)
        for i in 0..<modules.count { modules[i] = (body[body.startIndex + i / 8 % body.count] >> (i % 8)) & 1 == 1 }
        _ = try? QRReader.decode(modules: modules, size: side)
    }
    return 0
}
