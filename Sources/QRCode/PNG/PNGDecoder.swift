import Deflate
import Foundation

/// Decodes PNG files of every standard colour type, bit depth and interlacing into a
/// grayscale luminance image, compositing any transparency over white.
public enum PNGDecoder {
    /// Caps that keep hostile files from using unbounded memory or time.
    public struct Limits: Sendable, Hashable {
        /// Largest accepted width in pixels.
        public var maxWidth: Int
        /// Largest accepted height in pixels.
        public var maxHeight: Int
        /// Largest accepted width × height.
        public var maxPixels: Int
        /// Largest accepted size of the decompressed (filtered) image data.
        public var maxDecompressedBytes: Int

        /// Creates limits; every value must be positive to admit any image.
        public init(maxWidth: Int, maxHeight: Int, maxPixels: Int, maxDecompressedBytes: Int) {
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.maxPixels = maxPixels
            self.maxDecompressedBytes = maxDecompressedBytes
        }

        /// 16384 × 16384, 64 megapixels, 512 MiB of decompressed data.
        public static let `default` = Limits(maxWidth: 16384, maxHeight: 16384, maxPixels: 64 << 20, maxDecompressedBytes: 512 << 20)
    }

    /// Decodes `data` into a luminance image.
    /// - Throws: `PNGError` naming what is wrong and where.
    public static func decode(_ data: Data, limits: Limits = .default) throws -> GrayImage {
        try decode([UInt8](data), limits: limits)
    }

    /// Decodes PNG `bytes` into a luminance image.
    public static func decode(_ bytes: [UInt8], limits: Limits = .default) throws -> GrayImage {
        try decode(bytes, limits: limits, atMostPixels: nil).image
    }

    /// Decodes `data` into a luminance image of at most `pixels` pixels: a larger image is made
    /// smaller by the least whole factor that fits (each pixel the mean of a block), straight from
    /// the decompressed rows, so the full-size luminance image is never held.
    /// - Returns: the image and the factor (1 when it fitted as it is).
    /// - Throws: `PNGError` naming what is wrong and where.
    public static func decode(_ data: Data, limits: Limits = .default, atMostPixels pixels: Int) throws -> (image: GrayImage, factor: Int) {
        try decode([UInt8](data), limits: limits, atMostPixels: pixels)
    }

    static func decode(_ bytes: [UInt8], limits: Limits, atMostPixels pixels: Int?) throws -> (image: GrayImage, factor: Int) {
        let parts = try readChunks(bytes, limits: limits)
        let header = parts.header
        let expected = header.expectedDataSize
        guard expected <= limits.maxDecompressedBytes else {
            throw PNGError.decompressedSizeExceedsLimit(needed: expected, limit: limits.maxDecompressedBytes)
        }
        var raw: [UInt8]
        do {
            raw = try Inflate.zlib(parts.imageData, limit: expected, expected: expected)
        } catch .outputTooLarge {
            throw PNGError.imageDataTooLong(expected: expected)
        } catch {
            throw PNGError.compressedData(error)
        }
        guard raw.count == expected else { throw PNGError.imageDataTooShort(expected: expected, actual: raw.count) }
        let factor = pixels.map { GrayImage.reduction(width: header.width, height: header.height, toAtMost: $0) } ?? 1
        let image = try PNGPixelConverter(header: header, palette: parts.palette, transparency: parts.transparency)
            .makeImage(from: &raw, reducedBy: factor)
        return (image, factor)
    }

    struct Chunks {
        var header: PNGHeader
        var palette: [UInt8]?
        var transparency: [UInt8]?
        var imageData: [UInt8]
    }

    /// Walks the chunk list, checking every CRC, and gathers what decoding needs.
    static func readChunks(_ bytes: [UInt8], limits: Limits) throws(PNGError) -> Chunks {
        guard bytes.count >= 8 else { throw bytes.elementsEqual(PNGEncoder.signature.prefix(bytes.count)) ? .truncated(offset: bytes.count) : .notPNG }
        guard bytes[0..<8].elementsEqual(PNGEncoder.signature) else { throw .notPNG }
        var offset = 8
        var header: PNGHeader?
        var palette: [UInt8]?
        var transparency: [UInt8]?
        var imageData: [UInt8] = []
        var sawImageData = false
        var sawEnd = false
        while !sawEnd {
            guard offset + 8 <= bytes.count else { throw .truncated(offset: bytes.count) }
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= Int(Int32.max) else { throw .invalidChunkLength(chunk: type, length: length, offset: offset) }
            guard offset + 12 + length <= bytes.count else { throw .truncated(offset: bytes.count) }
            let crcStored = UInt32(bytes[offset + 8 + length]) << 24 | UInt32(bytes[offset + 9 + length]) << 16
                | UInt32(bytes[offset + 10 + length]) << 8 | UInt32(bytes[offset + 11 + length])
            let crc = bytes.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + length)])) }
            guard crc == crcStored else { throw .badCRC(chunk: type, offset: offset) }
            let body = bytes[(offset + 8)..<(offset + 8 + length)]

            if header == nil && type != "IHDR" { throw .missingHeader }
            switch type {
            case "IHDR":
                guard header == nil else { throw .chunkOutOfOrder(chunk: type, offset: offset) }
                guard length == 13 else { throw .invalidChunkLength(chunk: type, length: length, offset: offset) }
                let parsed = try PNGHeader(body)
                guard parsed.width <= limits.maxWidth, parsed.height <= limits.maxHeight,
                      parsed.width.multipliedReportingOverflow(by: parsed.height).partialValue <= limits.maxPixels,
                      !parsed.width.multipliedReportingOverflow(by: parsed.height).overflow
                else { throw .imageTooLarge(width: parsed.width, height: parsed.height, limits: limits) }
                header = parsed
            case "PLTE":
                guard palette == nil, !sawImageData, header!.colorType != 0, header!.colorType != 4 else {
                    throw .chunkOutOfOrder(chunk: type, offset: offset)
                }
                guard length % 3 == 0, length >= 3, length <= 768 else { throw .invalidChunkLength(chunk: type, length: length, offset: offset) }
                palette = Array(body)
            case "tRNS":
                guard !sawImageData else { throw .chunkOutOfOrder(chunk: type, offset: offset) }
                switch header!.colorType {
                case 0: guard length == 2 else { throw .invalidChunkLength(chunk: type, length: length, offset: offset) }
                case 2: guard length == 6 else { throw .invalidChunkLength(chunk: type, length: length, offset: offset) }
                case 3:
                    guard let palette else { throw .chunkOutOfOrder(chunk: type, offset: offset) }
                    guard length <= palette.count / 3 else { throw .invalidChunkLength(chunk: type, length: length, offset: offset) }
                default: throw .chunkOutOfOrder(chunk: type, offset: offset)
                }
                transparency = Array(body)
            case "IDAT":
                sawImageData = true
                imageData.append(contentsOf: body)
            case "IEND":
                sawEnd = true
            default:
                // Bit 5 of the first type byte clear means critical: unsafe to ignore.
                if typeBytes.first! & 0x20 == 0 { throw .unknownCriticalChunk(chunk: type, offset: offset) }
            }
            offset += 12 + length
        }
        guard let header else { throw .missingHeader }
        guard sawImageData else { throw .missingImageData }
        if header.colorType == 3 && palette == nil { throw .missingPalette }
        return Chunks(header: header, palette: palette, transparency: transparency, imageData: imageData)
    }
}
