/// Why data could not be encoded as a QR code.
public enum QREncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The segments need more bits than the largest allowed version holds at the requested level.
    case dataTooLong(neededBits: Int, capacityBits: Int, level: QRErrorCorrectionLevel, maxVersion: Int)
    /// A character cannot be represented in the segment's mode.
    case invalidCharacter(mode: QRMode, byte: UInt8, offset: Int)
    /// An ECI assignment number outside 0...999999.
    case invalidECI(Int)
    /// The version range is empty or outside 1...40.
    case invalidVersionRange(min: Int, max: Int)
    /// A mask number outside 0...7.
    case invalidMask(Int)

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case let .dataTooLong(needed, capacity, level, maxVersion):
            return "data too long: needs \(needed) bits but version \(maxVersion) at level \(level) holds \(capacity) bits"
        case let .invalidCharacter(mode, byte, offset):
            return "byte 0x\(String(byte, radix: 16)) at offset \(offset) cannot be encoded in \(mode) mode"
        case let .invalidECI(value):
            return "ECI assignment \(value) is outside 0...999999"
        case let .invalidVersionRange(min, max):
            return "version range \(min)...\(max) is not within 1...40"
        case let .invalidMask(mask):
            return "mask \(mask) is outside 0...7"
        }
    }
}
