import Foundation

/// The image file formats the QR reader takes, told apart by their first bytes.
public enum QRImageFormat: Sendable, Hashable, CustomStringConvertible {
    case png
    case jpeg

    /// The format `data` starts like, or nil for anything else. Looks only at the signature:
    /// PNG's eight bytes, or JPEG's SOI followed by the first marker's `FF` (`FF D8 FF`).
    public static func sniff(_ data: Data) -> QRImageFormat? {
        let head = [UInt8](data.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        return nil
    }

    /// "PNG" or "JPEG".
    public var description: String {
        switch self {
        case .png: return "PNG"
        case .jpeg: return "JPEG"
        }
    }
}

/// Why image data could not even be handed to a decoder.
public enum QRImageFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data starts with neither the PNG signature nor a JPEG SOI marker; `signature` holds
    /// its first (up to 8) bytes for the message.
    case unrecognizedFormat(signature: [UInt8])

    /// A message naming what was found.
    public var description: String {
        switch self {
        case let .unrecognizedFormat(signature):
            let hex = signature.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: " ")
            return signature.isEmpty ? "not an image: the data is empty" : "not a PNG or JPEG image (starts with \(hex))"
        }
    }
}

extension QRReader {
    /// Decodes a JPEG (baseline or progressive; turned upright by its EXIF orientation) and
    /// reads every QR code in it, at most ``maxWorkingPixels`` at a time.
    /// - Throws: `JPEGError` when the JPEG itself cannot be decoded.
    public static func read(jpeg: Data, limits: JPEGDecoder.Limits = .default) throws -> [DecodedQR] {
        let (image, factor) = try workingImage(jpeg: jpeg, limits: limits)
        return read(image: image).map { scale($0, by: Double(factor)) }
    }

    /// The JPEG's luminance at most ``maxWorkingPixels``; the full-size plane is gone when this
    /// returns.
    private static func workingImage(jpeg: Data, limits: JPEGDecoder.Limits) throws -> (GrayImage, Int) {
        let full = try JPEGDecoder.decodeLuma(jpeg, limits: limits)
        let factor = GrayImage.reduction(width: full.width, height: full.height, toAtMost: maxWorkingPixels)
        return (full.reduced(by: factor), factor)
    }

    /// Reads every QR code in a PNG or JPEG file, telling the two apart by their signature.
    /// - Throws: `QRImageFormatError` for data that is neither, `PNGError` or `JPEGError`
    ///   when the image cannot be decoded.
    public static func read(imageData: Data, png: PNGDecoder.Limits = .default, jpeg: JPEGDecoder.Limits = .default) throws -> [DecodedQR] {
        switch QRImageFormat.sniff(imageData) {
        case .png: return try read(png: imageData, limits: png)
        case .jpeg: return try read(jpeg: imageData, limits: jpeg)
        case nil: throw QRImageFormatError.unrecognizedFormat(signature: [UInt8](imageData.prefix(8)))
        }
    }
}
