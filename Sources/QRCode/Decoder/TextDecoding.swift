import Foundation

/// Turns byte-segment content into text according to an ECI assignment.
enum TextDecoding {
    static func decode(_ bytes: [UInt8], eci: Int?) -> String? {
        switch eci {
        case 26?, nil:
            if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
            return latin1(bytes)
        case 1?, 3?:
            return latin1(bytes)
        case 27?, 170?:
            return String(data: Data(bytes), encoding: .ascii) ?? latin1(bytes)
        case 4?:
            return String(data: Data(bytes), encoding: .isoLatin2) ?? latin1(bytes)
        case 20?:
            return String(data: Data(bytes), encoding: .shiftJIS)
        case 21?:
            return String(data: Data(bytes), encoding: .windowsCP1250) ?? latin1(bytes)
        case 22?:
            return String(data: Data(bytes), encoding: .windowsCP1251) ?? latin1(bytes)
        case 23?:
            return String(data: Data(bytes), encoding: .windowsCP1252) ?? latin1(bytes)
        case 25?:
            return String(data: Data(bytes), encoding: .utf16BigEndian) ?? latin1(bytes)
        default:
            return String(validating: bytes, as: UTF8.self) ?? latin1(bytes)
        }
    }

    static func latin1(_ bytes: [UInt8]) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
