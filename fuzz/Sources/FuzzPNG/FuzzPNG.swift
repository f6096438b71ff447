import Foundation
import QRCode

/// The PNG decoder with tight caps: typed errors, never a crash, never more memory than the caps allow.
let limits = PNGDecoder.Limits(maxWidth: 4096, maxHeight: 4096, maxPixels: 4 << 20, maxDecompressedBytes: 16 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let image = try? PNGDecoder.decode(bytes, limits: limits) {
        precondition(image.width * image.height <= 4 << 20)
        precondition(image.pixels.count == image.width * image.height)
    }
    return 0
}
