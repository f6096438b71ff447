import Foundation
import QRCode

/// The JPEG decoder (baseline and progressive, EXIF orientation) with tight caps: typed errors,
/// never a crash, never an image beyond the caps.
let limits = JPEGDecoder.Limits(maxPixels: 4 << 20, maxDimension: 4096, maxScans: 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let image = try? JPEGDecoder.decodeLuma(bytes, limits: limits) {
        precondition(image.width * image.height <= 4 << 20)
        precondition(image.width <= 4096 && image.height <= 4096)
        precondition(image.pixels.count == image.width * image.height)
    }
    return 0
}
