import Foundation

extension QRMatrix {
    /// An 8-bit grayscale PNG of the symbol, black on white.
    /// - Throws: `QRRenderError` as `render(moduleSize:quietZone:)` does.
    public func pngData(moduleSize: Int, quietZone: Int = 4) throws -> Data {
        let image = try render(moduleSize: moduleSize, quietZone: quietZone)
        return PNGEncoder.encode(image)
    }
}
