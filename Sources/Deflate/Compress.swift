/// Pure-Swift DEFLATE compression: raw DEFLATE (RFC 1951), as SMART Health Card payloads need,
/// and the zlib format (RFC 1950), as PNG needs.
///
/// The output is what zlib writes in structure (LZ77 over a 32 KiB window with hash chains,
/// lazy matching at the higher levels, blocks of at most 16 384 symbols, each sent stored, with
/// the fixed code or with its own length-limited Huffman codes, whichever is smallest; every code
/// complete), so any conforming inflater reads it: zlib, Python's `zlib`, browsers, our `Inflate`.
/// At `.best` the size is within a fraction of a percent of zlib's level 9 (see docs/deflate.md).
public enum Compress {
    /// How hard to look for matches: the trade between time and size.
    public enum Level: Sendable, Hashable, CaseIterable {
        /// No compression: stored blocks only. For data known to be incompressible, and for
        /// tests that need the simplest valid stream.
        case stored
        /// Greedy matching with short hash chains (like zlib's level 3): for large data where time
        /// matters more than the last few percent.
        case fast
        /// Lazy matching with moderate chains (like zlib's default level 6).
        case balanced
        /// Lazy matching with long chains (like zlib's level 9): for small payloads where every
        /// byte counts, such as a SMART Health Card, whose QR code grows with its payload.
        case best
    }

    /// Compresses `input` as a raw DEFLATE stream (RFC 1951, no header or trailer).
    ///
    /// - Parameters:
    ///   - input: the bytes to compress; any length, including zero.
    ///   - level: how hard to look for matches.
    /// - Returns: a complete stream whose last block is final.
    public static func raw(_ input: UnsafeRawBufferPointer, level: Level = .balanced) -> [UInt8] {
        var writer = BitWriter(capacity: input.count / 2 + 64)
        writeBlocks(input, level: level, to: &writer)
        return writer.finish()
    }

    /// Compresses `input` as a raw DEFLATE stream; see `raw(_:level:)`.
    public static func raw(_ input: [UInt8], level: Level = .balanced) -> [UInt8] {
        input.withUnsafeBytes { raw($0, level: level) }
    }

    /// Compresses `input` as a zlib stream (RFC 1950): a 2-byte header (DEFLATE, 32 KiB window,
    /// the level as a hint), raw DEFLATE, and the big-endian Adler-32 of `input`.
    public static func zlib(_ input: UnsafeRawBufferPointer, level: Level = .balanced) -> [UInt8] {
        var writer = BitWriter(capacity: input.count / 2 + 64)
        // CMF 0x78: method 8, 32 KiB window. FLG: FLEVEL as zlib sets it, check bits so that
        // CMF·256 + FLG is a multiple of 31.
        let flag: UInt32 = switch level {
        case .stored, .fast: 0x01
        case .balanced: 0x9C
        case .best: 0xDA
        }
        writer.write(0x78 | flag << 8, bits: 16)
        writeBlocks(input, level: level, to: &writer)
        let adler = Adler32.checksum(input)
        writer.alignToByte()
        writer.write(adler.byteSwapped, bits: 32)
        return writer.finish()
    }

    /// Compresses `input` as a zlib stream; see `zlib(_:level:)`.
    public static func zlib(_ input: [UInt8], level: Level = .balanced) -> [UInt8] {
        input.withUnsafeBytes { zlib($0, level: level) }
    }

    /// The DEFLATE blocks of `input`, the last one final.
    private static func writeBlocks(_ input: UnsafeRawBufferPointer, level: Level, to writer: inout BitWriter) {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), !input.isEmpty else {
            // The shortest stream: a final fixed block holding only the end-of-block code
            // (a final empty stored block when asked for stored blocks).
            if level == .stored {
                BlockEncoder.writeStored(nil, count: 0, final: true, to: &writer)
            } else {
                BlockEncoder.writeBlock(symbols: UnsafeBufferPointer(start: nil, count: 0), bytes: nil, byteCount: 0, final: true, to: &writer)
            }
            return
        }
        guard let parameters = MatchParameters(level) else {
            BlockEncoder.writeStored(base, count: input.count, final: true, to: &writer)
            return
        }
        // Positions are kept in 32 bits: beyond a gigabyte, segments are compressed one after
        // another, each starting with an empty window (a match never crosses segments).
        var start = 0
        repeat {
            let count = min(MatchFinder.maxSegment, input.count - start)
            var finder = MatchFinder(data: base + start, count: count, parameters: parameters)
            finder.run(final: start + count == input.count, to: &writer)
            finder.release()
            start += count
        } while start < input.count
    }
}
