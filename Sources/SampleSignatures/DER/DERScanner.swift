/// Walks raw bytes as DER tag–length–value triples and reports the first
/// structural fault, with its byte offset.
///
/// swift-asn1's parser already rejects everything reported here; its errors
/// carry a reason string but no position. This scanner is only run after that
/// parser has failed, to turn the failure into a precise ``DERFault``.
enum DERScanner {
    /// The deepest nesting accepted (swift-asn1 allows 50).
    static let maximumDepth = 50

    /// Returns the first structural fault in `bytes`, or `nil` if they are a
    /// single well-formed DER TLV (tags and lengths only; contents are not typed).
    ///
    /// - Parameter maximumLength: lengths above this are reported as
    ///   ``DERFault/Kind/lengthTooLarge`` rather than ``DERFault/Kind/truncated``.
    static func firstFault(in bytes: [UInt8], maximumLength: Int) -> DERFault? {
        var position = 0
        if let fault = scan(bytes, position: &position, end: bytes.count, depth: 1, maximumLength: maximumLength) {
            return fault
        }
        if position != bytes.count {
            return DERFault(kind: .trailingBytes, structure: .encoding, offset: position)
        }
        return nil
    }

    private static func fault(_ kind: DERFault.Kind, _ offset: Int) -> DERFault {
        DERFault(kind: kind, structure: .encoding, offset: offset)
    }

    private static func scan(
        _ bytes: [UInt8],
        position: inout Int,
        end: Int,
        depth: Int,
        maximumLength: Int
    ) -> DERFault? {
        let start = position
        guard depth <= maximumDepth else { return fault(.nestingTooDeep, start) }
        guard position < end else { return fault(.truncated, start) }

        let tagByte = bytes[position]
        position += 1
        let constructed = tagByte & 0x20 != 0
        if tagByte & 0x1F == 0x1F {
            // Long-form tag number: base-128, no leading 0x80, value ≥ 31.
            guard position < end else { return fault(.truncated, start) }
            guard bytes[position] != 0x80 else { return fault(.invalidTag, start) }
            var tagNumber: UInt64 = 0
            while true {
                guard position < end else { return fault(.truncated, start) }
                let byte = bytes[position]
                position += 1
                guard tagNumber >> 57 == 0 else { return fault(.invalidTag, start) }
                tagNumber = tagNumber << 7 | UInt64(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            guard tagNumber >= 0x1F else { return fault(.invalidTag, start) }
        } else if tagByte == 0x00 {
            // [UNIVERSAL 0] is end-of-contents, which DER never uses.
            return fault(.invalidTag, start)
        }

        guard position < end else { return fault(.truncated, start) }
        let lengthByte = bytes[position]
        position += 1
        let length: Int
        if lengthByte == 0x80 {
            return fault(.indefiniteLength, start)
        } else if lengthByte & 0x80 == 0 {
            length = Int(lengthByte)
        } else {
            let octets = Int(lengthByte & 0x7F)
            // 0xFF is reserved (X.690 §8.1.3.5 c); more than 8 octets cannot be a real length.
            guard octets <= 8 else { return fault(.lengthTooLarge, start) }
            guard end - position >= octets else { return fault(.truncated, start) }
            var value: UInt64 = 0
            for index in 0..<octets {
                value = value << 8 | UInt64(bytes[position + index])
            }
            guard bytes[position] != 0, value >= 0x80 else { return fault(.nonMinimalLength, start) }
            position += octets
            guard value <= UInt64(maximumLength) else { return fault(.lengthTooLarge, start) }
            length = Int(value)
        }

        guard end - position >= length else {
            return fault(length > maximumLength ? .lengthTooLarge : .truncated, start)
        }
        let contentEnd = position + length
        if constructed {
            while position < contentEnd {
                if let inner = scan(bytes, position: &position, end: contentEnd, depth: depth + 1, maximumLength: maximumLength) {
                    return inner
                }
            }
        } else {
            position = contentEnd
        }
        return nil
    }
}
