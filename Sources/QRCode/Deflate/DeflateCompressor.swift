import Deflate

/// A small DEFLATE compressor: greedy LZ77 over a 32 KiB window with hash chains,
/// emitted as one fixed-Huffman block. Rendered QR images are long runs and repeated
/// rows, which this handles well without the cost of dynamic Huffman tables.
enum DeflateCompressor {
    private static let windowSize = 1 << 15
    private static let hashBits = 15
    private static let maxChain = 48
    private static let minMatch = 3
    private static let maxMatch = 258

    /// The fixed-code bit patterns, already reversed for LSB-first output.
    private static let fixedLiteralCodes: [UInt32] = {
        let codes = DeflateTables.canonicalCodes(DeflateTables.fixedLiteralLengths)
        return (0..<288).map { UInt32(DeflateTables.reverse(codes[$0], length: Int(DeflateTables.fixedLiteralLengths[$0]))) }
    }()

    /// Raw DEFLATE data (no zlib wrapper) for `input`.
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // final block
        writer.write(1, bits: 2)  // fixed Huffman
        let literalCodes = fixedLiteralCodes
        let literalLengths = DeflateTables.fixedLiteralLengths
        let lengthSymbol = DeflateTables.lengthSymbol

        func emitSymbol(_ symbol: Int) {
            writer.write(literalCodes[symbol], bits: Int(literalLengths[symbol]))
        }

        input.withUnsafeBufferPointer { data in
            let count = data.count
            var head = [Int32](repeating: -1, count: 1 << hashBits)
            var previous = [Int32](repeating: -1, count: windowSize)
            func hash(_ i: Int) -> Int {
                let value = Int(data[i]) << 16 | Int(data[i + 1]) << 8 | Int(data[i + 2])
                return (value &* 0x9E3779B1) >> (32 - hashBits) & ((1 << hashBits) - 1)
            }
            func insert(_ i: Int) {
                guard i + minMatch <= count else { return }
                let h = hash(i)
                previous[i & (windowSize - 1)] = head[h]
                head[h] = Int32(i)
            }

            var i = 0
            while i < count {
                var bestLength = 0
                var bestDistance = 0
                if i + minMatch <= count {
                    var candidate = Int(head[hash(i)])
                    var chain = 0
                    let limit = Swift.min(maxMatch, count - i)
                    while candidate >= 0, i - candidate <= windowSize - 1, chain < maxChain {
                        if data[candidate + bestLength] == data[i + bestLength] || bestLength == 0 {
                            var length = 0
                            while length < limit && data[candidate + length] == data[i + length] { length += 1 }
                            if length > bestLength {
                                bestLength = length
                                bestDistance = i - candidate
                                if length == limit { break }
                            }
                        }
                        let next = Int(previous[candidate & (windowSize - 1)])
                        if next >= candidate { break }
                        candidate = next
                        chain += 1
                    }
                }
                if bestLength >= minMatch {
                    let symbol = Int(lengthSymbol[bestLength])
                    emitSymbol(symbol)
                    let code = symbol - 257
                    writer.write(UInt32(bestLength - DeflateTables.lengthBase[code]), bits: DeflateTables.lengthExtraBits[code])
                    var distanceCode = 0
                    while distanceCode < 29 && DeflateTables.distanceBase[distanceCode + 1] <= bestDistance { distanceCode += 1 }
                    writer.write(UInt32(DeflateTables.reverse(distanceCode, length: 5)), bits: 5)
                    writer.write(UInt32(bestDistance - DeflateTables.distanceBase[distanceCode]), bits: DeflateTables.distanceExtraBits[distanceCode])
                    for k in 0..<bestLength { insert(i + k) }
                    i += bestLength
                } else {
                    emitSymbol(Int(data[i]))
                    insert(i)
                    i += 1
                }
            }
        }
        emitSymbol(256)
        return writer.finish()
    }

    /// A zlib stream (RFC 1950): header, raw DEFLATE data, Adler-32 of `input`.
    static func zlibCompress(_ input: [UInt8]) -> [UInt8] {
        // 0x78 0x01: 32 KiB window, no dictionary, "fastest" hint; 0x7801 is a multiple of 31.
        var output: [UInt8] = [0x78, 0x01]
        output += compress(input)
        let adler = Adler32.checksum(input)
        output += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return output
    }

    /// A zlib stream made of stored (uncompressed) blocks only.
    static func zlibStored(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = Swift.min(65535, input.count - offset)
            let final: UInt8 = offset + length == input.count ? 1 : 0
            output.append(final)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            output += input[offset..<(offset + length)]
            offset += length
        } while offset < input.count
        let adler = Adler32.checksum(input)
        output += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return output
    }
}

/// Packs bits least significant first, as DEFLATE requires.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    @inline(__always)
    mutating func write(_ value: UInt32, bits: Int) {
        buffer |= UInt64(value) << UInt64(count)
        count += bits
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count -= 8
        }
    }

    mutating func finish() -> [UInt8] {
        if count > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
        buffer = 0
        count = 0
        return bytes
    }
}
