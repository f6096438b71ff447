/// The growing output and the block loop.
struct InflateState {
    let limit: Int
    var storage: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    init(limit: Int) {
        self.limit = limit
        // Grow on demand so memory follows the data actually produced, not a claimed size.
        storage = .allocate(capacity: Swift.max(1, Swift.min(limit, 1 << 16)))
    }

    /// Frees the output buffer; the state must not be used afterwards.
    mutating func release() {
        storage.deallocate()
        storage = UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    mutating func finish() -> [UInt8] {
        Array(UnsafeBufferPointer(rebasing: storage[0..<count]))
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) throws(InflateError) {
        let needed = count + extra
        if needed <= storage.count { return }
        if needed > limit { throw .outputLimitExceeded(limit: limit) }
        let newCapacity = Swift.min(limit, Swift.max(needed, storage.count * 2))
        let bigger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: newCapacity)
        if count > 0 {
            bigger.baseAddress!.update(from: storage.baseAddress!, count: count)
        }
        storage.deallocate()
        storage = bigger
    }

    static let fixedLiteralTable: HuffmanTable = try! HuffmanTable(lengths: DeflateTables.fixedLiteralLengths)
    static let fixedDistanceTable: HuffmanTable = try! HuffmanTable(lengths: [UInt8](repeating: 5, count: 30))

    mutating func run(_ reader: inout DeflateBitReader) throws(InflateError) {
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            let type = try reader.bits(2)
            switch type {
            case 0: try storedBlock(&reader)
            case 1: try huffmanBlock(&reader, literals: Self.fixedLiteralTable, distances: Self.fixedDistanceTable)
            case 2:
                let (literals, distances) = try readDynamicTables(&reader)
                try huffmanBlock(&reader, literals: literals, distances: distances)
            default: throw .invalidBlockType(offset: reader.byteOffset)
            }
        }
    }

    private mutating func storedBlock(_ reader: inout DeflateBitReader) throws(InflateError) {
        try reader.alignToByte()
        let length = try reader.bits(16)
        let complement = try reader.bits(16)
        guard length ^ 0xFFFF == complement else { throw .storedLengthMismatch(offset: reader.byteOffset) }
        try reserve(length)
        // Whole bytes may still sit in the bit buffer; take bytes through it.
        for _ in 0..<length {
            storage[count] = UInt8(try reader.bits(8))
            count += 1
        }
    }

    private func readDynamicTables(_ reader: inout DeflateBitReader) throws(InflateError) -> (HuffmanTable, HuffmanTable) {
        let literalCount = try reader.bits(5) + 257
        let distanceCount = try reader.bits(5) + 1
        let codeLengthCount = try reader.bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "\(literalCount) literal or \(distanceCount) distance codes")
        }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<codeLengthCount {
            codeLengthLengths[DeflateTables.codeLengthOrder[i]] = UInt8(try reader.bits(3))
        }
        let codeLengthTable: HuffmanTable
        do { codeLengthTable = try HuffmanTable(lengths: codeLengthLengths) } catch {
            throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "over-subscribed code length code")
        }
        var lengths = [UInt8](repeating: 0, count: literalCount + distanceCount)
        var i = 0
        while i < lengths.count {
            let symbol = try reader.decode(codeLengthTable)
            switch symbol {
            case 0...15:
                lengths[i] = UInt8(symbol)
                i += 1
            case 16:
                guard i > 0 else { throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "repeat with no previous length") }
                let repeatCount = 3 + (try reader.bits(2))
                guard i + repeatCount <= lengths.count else { throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "repeat past end") }
                let previous = lengths[i - 1]
                for _ in 0..<repeatCount { lengths[i] = previous; i += 1 }
            default:
                let repeatCount = symbol == 17 ? 3 + (try reader.bits(3)) : 11 + (try reader.bits(7))
                guard i + repeatCount <= lengths.count else { throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "repeat past end") }
                i += repeatCount
            }
        }
        guard lengths[256] != 0 else { throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "no end-of-block code") }
        do {
            let literals = try HuffmanTable(lengths: Array(lengths[0..<literalCount]))
            let distances = try HuffmanTable(lengths: Array(lengths[literalCount...]))
            return (literals, distances)
        } catch {
            throw .invalidHuffmanCode(offset: reader.byteOffset, reason: "over-subscribed literal or distance code")
        }
    }

    private mutating func huffmanBlock(_ reader: inout DeflateBitReader, literals: HuffmanTable, distances: HuffmanTable) throws(InflateError) {
        while true {
            let symbol = try reader.decode(literals)
            if symbol < 256 {
                if count == storage.count { try reserve(1) }
                storage[count] = UInt8(symbol)
                count += 1
                continue
            }
            if symbol == 256 { return }
            let code = symbol - 257
            guard code < 29 else { throw .invalidSymbol(offset: reader.byteOffset) }
            let length = DeflateTables.lengthBase[code] + (try reader.bits(DeflateTables.lengthExtraBits[code]))
            let distanceSymbol = try reader.decode(distances)
            guard distanceSymbol < 30 else { throw .invalidSymbol(offset: reader.byteOffset) }
            let distance = DeflateTables.distanceBase[distanceSymbol] + (try reader.bits(DeflateTables.distanceExtraBits[distanceSymbol]))
            guard distance <= count else { throw .distanceTooFar(distance: distance, available: count, offset: reader.byteOffset) }
            try reserve(length)
            let base = storage.baseAddress!
            if distance >= length {
                (base + count).update(from: base + count - distance, count: length)
            } else {
                // Overlapping copy repeats the last `distance` bytes, so it must go forward byte by byte.
                for k in 0..<length { base[count + k] = base[count - distance + k] }
            }
            count += length
        }
    }
}
