/// A strict, allocation-free DER reader over a byte array, for hot paths.
///
/// It understands only single-octet tags and definite, minimally encoded
/// lengths, exactly as swift-asn1's DER parser requires; anything it does not
/// like makes it return `nil`, and callers then fall back to the full
/// swift-asn1 parse, which either reports the precise error or (for shapes the
/// cursor does not handle) parses the value. The cursor is therefore never
/// more lenient than swift-asn1.
struct DERCursor {
    /// One tag–length–value.
    struct Element {
        /// The single identifier octet.
        var tag: UInt8
        /// Where the identifier octet is.
        var start: Int
        /// The content octets.
        var content: Range<Int>
        /// The whole TLV.
        var encoding: Range<Int> { start..<content.upperBound }
        var isConstructed: Bool { tag & 0x20 != 0 }
    }

    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
        self.end = bytes.count
    }

    init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    /// A cursor over the contents of a constructed element.
    func children(of element: Element) -> DERCursor {
        DERCursor(bytes, range: element.content)
    }

    var isAtEnd: Bool { position == end }

    /// Reads the next element, whatever its tag. `nil` on any encoding this cursor does not accept.
    mutating func next() -> Element? {
        guard position < end else { return nil }
        let start = position
        let tag = bytes[position]
        // Long-form tag numbers and [UNIVERSAL 0] (primitive or constructed) are left to swift-asn1.
        guard tag & 0x1F != 0x1F, tag & 0xDF != 0 else { return nil }
        guard position + 1 < end else { return nil }
        let first = bytes[position + 1]
        var index = position + 2
        let length: Int
        if first < 0x80 {
            length = Int(first)
        } else {
            let octets = Int(first & 0x7F)
            // 0x80 is indefinite (BER); more than 4 octets is more than any input here.
            guard octets >= 1, octets <= 4, end - index >= octets else { return nil }
            var value = 0
            for offset in 0..<octets {
                value = value << 8 | Int(bytes[index + offset])
            }
            // Minimal: no leading zero octet, and long form only from 128 on.
            guard bytes[index] != 0, value >= 0x80 else { return nil }
            index += octets
            length = value
        }
        guard end - index >= length else { return nil }
        position = index + length
        return Element(tag: tag, start: start, content: index..<(index + length))
    }

    /// Reads the next element and requires `tag`.
    mutating func next(tag: UInt8) -> Element? {
        guard let element = next(), element.tag == tag else { return nil }
        return element
    }

    /// Reads the next element if it has `tag`; otherwise leaves the cursor where it was.
    mutating func optional(tag: UInt8) -> Element? {
        var copy = self
        guard let element = copy.next(), element.tag == tag else { return nil }
        self = copy
        return element
    }

    /// The bytes of `range`.
    subscript(range: Range<Int>) -> ArraySlice<UInt8> {
        bytes[range]
    }

    /// Whether `element` is exactly the DER TLV `encoding`.
    func matches(_ element: Element, _ encoding: [UInt8]) -> Bool {
        bytes[element.encoding].elementsEqual(encoding)
    }

    /// Whether every TLV nested in `element` is acceptable DER, to the depth swift-asn1 allows.
    func isWellFormed(_ element: Element, depth: Int = 1) -> Bool {
        guard depth < 40 else { return false }
        guard element.isConstructed else { return true }
        var inner = children(of: element)
        while !inner.isAtEnd {
            guard let child = inner.next(), isWellFormed(child, depth: depth + 1) else { return false }
        }
        return true
    }

    /// Whether `element` is a primitive OBJECT IDENTIFIER that swift-asn1 would accept.
    func isValidObjectIdentifier(_ element: Element) -> Bool {
        guard element.tag == 0x06, !element.content.isEmpty else { return false }
        var subidentifierLength = 0
        var atStart = true
        for index in element.content {
            let byte = bytes[index]
            if atStart, byte == 0x80 { return false }
            atStart = false
            subidentifierLength += 1
            guard subidentifierLength <= 8 else { return false }
            if byte & 0x80 == 0 {
                subidentifierLength = 0
                atStart = true
            }
        }
        return atStart
    }

    /// Reads all remaining elements as a DER SET OF: each well formed, in non-decreasing order.
    mutating func setElements() -> [Element]? {
        var elements: [Element] = []
        while !isAtEnd {
            guard let element = next(), isWellFormed(element) else { return nil }
            if let previous = elements.last, !Self.lessThanOrEqual(bytes[previous.encoding], bytes[element.encoding]) {
                return nil
            }
            elements.append(element)
        }
        return elements
    }

    /// Whether the children of `element` are each well formed and in SET OF order.
    func isOrderedSet(_ element: Element) -> Bool {
        var inner = children(of: element)
        var previous: Element?
        while !inner.isAtEnd {
            guard let child = inner.next(), isWellFormed(child) else { return false }
            if let previous, !Self.lessThanOrEqual(bytes[previous.encoding], bytes[child.encoding]) {
                return false
            }
            previous = child
        }
        return true
    }

    /// swift-asn1's SET OF order (X.690 §11.6): byte-wise, the shorter padded with zeros.
    static func lessThanOrEqual(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        !lessThan(rhs, lhs)
    }

    private static func lessThan(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        for (left, right) in zip(lhs, rhs) where left != right {
            return left < right
        }
        return !rhs.dropFirst(lhs.count).allSatisfy { $0 == 0 }
    }
}
