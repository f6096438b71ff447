/// The EXIF orientation tag (0x0112, TIFF 6.0 / Exif 2.3): how the stored pixels must be
/// turned to appear upright. Phones store the sensor's rows as they come and set this tag.
enum JPEGExifOrientation: Int, Sendable {
    case normal = 1, mirrored = 2, rotated180 = 3, flippedVertically = 4
    case transposed = 5, rotated90Clockwise = 6, transverse = 7, rotated90CounterClockwise = 8

    /// Reads the orientation from an APP1 body (`bytes[start..<end]`); nil when the segment is
    /// not Exif or holds no valid orientation. Metadata never fails a decode: anything malformed
    /// here reads as "no orientation".
    static func parse(_ bytes: [UInt8], start: Int, end: Int) -> JPEGExifOrientation? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        guard end - start >= 14, bytes[start..<(start + 6)].elementsEqual(header) else { return nil }
        let tiff = start + 6
        let littleEndian: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= tiff, at + 2 <= end else { return nil }
            return littleEndian ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return littleEndian ? a | b << 16 : a << 16 | b
        }
        guard u16(tiff + 2) == 42, let ifdOffset = u32(tiff + 4), ifdOffset <= end - tiff else { return nil }
        let ifd = tiff + ifdOffset
        guard let entries = u16(ifd) else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            guard entry + 12 <= end, let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT, count 1: the value sits in the first two bytes of the value field.
            guard u16(entry + 2) == 3, u32(entry + 4) == 1, let value = u16(entry + 8) else { return nil }
            return JPEGExifOrientation(rawValue: value)
        }
        return nil
    }

    /// `image` turned upright.
    func apply(to image: GrayImage) -> GrayImage {
        let w = image.width, h = image.height
        let swapsSides = rawValue >= 5
        let outWidth = swapsSides ? h : w, outHeight = swapsSides ? w : h
        guard self != .normal else { return image }
        var out = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The stored pixel that appears at (x, y) once upright.
                        let sx: Int, sy: Int
                        switch self {
                        case .normal: (sx, sy) = (x, y)
                        case .mirrored: (sx, sy) = (w - 1 - x, y)
                        case .rotated180: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .flippedVertically: (sx, sy) = (x, h - 1 - y)
                        case .transposed: (sx, sy) = (y, x)
                        case .rotated90Clockwise: (sx, sy) = (y, h - 1 - x)
                        case .transverse: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .rotated90CounterClockwise: (sx, sy) = (w - 1 - y, x)
                        }
                        target[y * outWidth + x] = source[sy * w + sx]
                    }
                }
            }
        }
        return GrayImage(unchecked: outWidth, height: outHeight, pixels: out)
    }
}
