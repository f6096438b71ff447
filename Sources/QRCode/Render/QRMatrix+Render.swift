extension QRMatrix {
    /// Module sizes (pixels per module) the writers accept.
    public static let allowedModuleSizes: ClosedRange<Int> = 1...100
    /// Quiet zone widths (in modules) the writers accept.
    public static let allowedQuietZones: ClosedRange<Int> = 0...100
    /// Largest image side, in pixels, the writers produce.
    public static let maxImageSide = 16384

    /// Checks the rendering parameters and returns the image side in pixels.
    func imageSide(moduleSize: Int, quietZone: Int) throws -> Int {
        guard Self.allowedModuleSizes.contains(moduleSize) else {
            throw QRRenderError.invalidModuleSize(moduleSize, allowed: Self.allowedModuleSizes)
        }
        guard Self.allowedQuietZones.contains(quietZone) else {
            throw QRRenderError.invalidQuietZone(quietZone, allowed: Self.allowedQuietZones)
        }
        let side = (size + 2 * quietZone) * moduleSize
        guard side <= Self.maxImageSide else { throw QRRenderError.imageTooLarge(side: side, maxSide: Self.maxImageSide) }
        return side
    }

    /// Renders black modules on white with a quiet zone of `quietZone` modules.
    /// - Throws: `QRRenderError` for a module size outside 1...100, a quiet zone outside
    ///   0...100, or an image side above 16384 px.
    public func render(moduleSize: Int, quietZone: Int = 4) throws -> GrayImage {
        let side = try imageSide(moduleSize: moduleSize, quietZone: quietZone)
        var pixels = [UInt8](repeating: 255, count: side * side)
        let offset = quietZone * moduleSize
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<size {
                let top = offset + y * moduleSize
                for x in 0..<size where modules[y * size + x] {
                    let left = offset + x * moduleSize
                    for row in top..<(top + moduleSize) {
                        let start = row * side + left
                        for i in start..<(start + moduleSize) { out[i] = 0 }
                    }
                }
            }
        }
        return GrayImage(unchecked: side, height: side, pixels: pixels)
    }
}
