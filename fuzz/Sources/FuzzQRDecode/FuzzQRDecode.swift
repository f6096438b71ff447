import Foundation
import QRCode

/// The QR detector and decoder over arbitrary pixels, and the module-grid decoder over arbitrary grids.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // As a PNG (the path images take), under caps small enough that a fuzzed header declaring a
    // large image costs little: the limit checks are exercised, not the detector's time on a megapixel.
    _ = try? QRReader.read(png: Data(bytes), limits: PNGDecoder.Limits(maxWidth: 320, maxHeight: 320, maxPixels: 1 << 16, maxDecompressedBytes: 1 << 18))
    // As raw pixels: the first byte picks a width.
    if bytes.count > 64 {
        let width = 16 + Int(bytes[0]) % 112
        let height = (bytes.count - 1) / width
        if height >= 16, let image = try? GrayImage(width: width, height: height, pixels: Array(bytes[1..<(1 + width * height)])) {
            _ = QRReader.read(image: image)
        }
    }
    // As a module grid of a valid size.
    for version in [1, 2, 7] {
        let side = 17 + 4 * version
        if bytes.count >= side * side / 8 {
            var modules = [Bool](repeating: false, count: side * side)
            for i in 0..<modules.count { modules[i] = (bytes[i / 8 % bytes.count] >> (i % 8)) & 1 == 1 }
            _ = try? QRReader.decode(modules: modules, size: side)
        }
    }
    return 0
}
