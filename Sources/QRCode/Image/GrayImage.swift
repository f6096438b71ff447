/// An 8-bit grayscale image, row-major, 0 = black, 255 = white.
public struct GrayImage: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height` luminance values, row by row from the top.
    public private(set) var pixels: [UInt8]

    /// Creates an image from existing pixels.
    /// - Throws: `GrayImageError.pixelCountMismatch` when `pixels.count != width * height`,
    ///   `GrayImageError.invalidDimensions` for a negative side.
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        guard width >= 0, height >= 0, width.multipliedReportingOverflow(by: height).overflow == false else {
            throw GrayImageError.invalidDimensions(width: width, height: height)
        }
        guard pixels.count == width * height else {
            throw GrayImageError.pixelCountMismatch(expected: width * height, actual: pixels.count)
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Creates an image filled with one value (white unless told otherwise).
    public init(width: Int, height: Int, fill: UInt8 = 255) throws {
        guard width >= 0, height >= 0, width.multipliedReportingOverflow(by: height).overflow == false else {
            throw GrayImageError.invalidDimensions(width: width, height: height)
        }
        self.init(unchecked: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
    }

    init(unchecked width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y`; reads outside the image give white, writes are ignored.
    public subscript(x: Int, y: Int) -> UInt8 {
        get {
            guard x >= 0, y >= 0, x < width, y < height else { return 255 }
            return pixels[y * width + x]
        }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            pixels[y * width + x] = newValue
        }
    }
}
