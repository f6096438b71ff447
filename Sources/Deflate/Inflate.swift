/// Pure-Swift DEFLATE decompression: raw DEFLATE (RFC 1951), as SMART Health Cards use, and the
/// zlib format (RFC 1950), as PNG uses.
///
/// Decoding is strict: a stream must end exactly at the end of the input (up to 7 padding bits),
/// every code must be one zlib would accept, and output stops at `limit` bytes, so an inflate
/// bomb fails early with memory bounded by the limit.
public enum Inflate {
    /// Inflates a raw DEFLATE stream (RFC 1951, no header or trailer).
    ///
    /// A zlib- or gzip-wrapped stream is not raw DEFLATE and fails as `.corrupt` (or, rarely,
    /// `.truncated`), just as it does with zlib's raw mode.
    ///
    /// - Parameters:
    ///   - input: the compressed bytes, all of which must belong to the stream.
    ///   - limit: the most bytes the output may have.
    /// - Returns: the inflated bytes.
    /// - Throws: `.truncated`, `.trailingBytes`, `.corrupt`, or `.outputTooLarge`.
    public static func raw(_ input: UnsafeRawBufferPointer, limit: Int) throws(InflateError) -> [UInt8] {
        let (output, consumed) = try inflate(input, limit: limit)
        guard consumed == input.count else { throw .trailingBytes(count: input.count - consumed) }
        return output
    }

    /// Inflates a raw DEFLATE stream (RFC 1951, no header or trailer); see `raw(_:limit:)`.
    public static func raw(_ input: [UInt8], limit: Int) throws(InflateError) -> [UInt8] {
        let result = input.withUnsafeBytes { p in Result { () throws(InflateError) in try raw(p, limit: limit) } }
        return try result.get()
    }

    /// Inflates a zlib stream (RFC 1950): a 2-byte header (method 8, window ≤ 32 KiB, no preset
    /// dictionary), raw DEFLATE, and the big-endian Adler-32 of the output.
    ///
    /// - Parameters:
    ///   - input: the compressed bytes, all of which must belong to the stream.
    ///   - limit: the most bytes the output may have.
    ///   - expected: the output's size when the caller knows it (a PNG's rows): the output is
    ///     allocated once at that size instead of grown from a guess, which would hold the old
    ///     and the new buffer at once while copying.
    /// - Returns: the inflated bytes.
    /// - Throws: as `raw(_:limit:)`, plus `.checksumMismatch`; header problems are `.corrupt`.
    public static func zlib(_ input: UnsafeRawBufferPointer, limit: Int, expected: Int? = nil) throws(InflateError) -> [UInt8] {
        guard input.count >= 2 else { throw .truncated }
        let cmf = input[0]
        let flg = input[1]
        guard (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else { throw .corrupt(.invalidZlibHeaderCheck) }
        guard cmf & 0x0F == 8 else { throw .corrupt(.unsupportedCompressionMethod(cmf & 0x0F)) }
        guard cmf >> 4 <= 7 else { throw .corrupt(.invalidWindowSize(cinfo: cmf >> 4)) }
        guard flg & 0x20 == 0 else { throw .corrupt(.presetDictionary) }
        let body = UnsafeRawBufferPointer(rebasing: input[2...])
        let (output, consumed) = try inflate(body, limit: limit, capacity: expected)
        let trailer = body.count - consumed
        guard trailer >= 4 else { throw .truncated }
        guard trailer == 4 else { throw .trailingBytes(count: trailer - 4) }
        let t = body.baseAddress! + consumed
        let expected = UInt32(t.load(as: UInt8.self)) << 24 | UInt32(t.load(fromByteOffset: 1, as: UInt8.self)) << 16
            | UInt32(t.load(fromByteOffset: 2, as: UInt8.self)) << 8 | UInt32(t.load(fromByteOffset: 3, as: UInt8.self))
        let computed = output.withUnsafeBytes { Adler32.checksum($0) }
        guard expected == computed else { throw .checksumMismatch(expected: expected, computed: computed) }
        return output
    }

    /// Inflates a zlib stream (RFC 1950); see `zlib(_:limit:expected:)`.
    public static func zlib(_ input: [UInt8], limit: Int, expected: Int? = nil) throws(InflateError) -> [UInt8] {
        let result = input.withUnsafeBytes { p in Result { () throws(InflateError) in try zlib(p, limit: limit, expected: expected) } }
        return try result.get()
    }

    /// Inflates DEFLATE blocks up to the final one; returns the output and the input bytes used.
    /// `capacity`, when given, is the first allocation (else a guess from the input's size).
    static func inflate(_ input: UnsafeRawBufferPointer, limit: Int, capacity: Int? = nil) throws(InflateError) -> (output: [UInt8], consumed: Int) {
        guard let base = input.baseAddress, input.count > 0 else { throw .truncated }
        let limit = max(0, limit)
        // Most DEFLATE data inflates to under 4× its size; a good guess means no copy at the end.
        let guess = min(limit, capacity.map { max($0, 0) } ?? max(min(input.count, Int.max / 8) * 4, 1024))
        var failure: InflateError?
        var moved: [UInt8]?
        var consumed = 0
        let direct = [UInt8](unsafeUninitializedCapacity: guess + OutputBuffer.slack) { buffer, count in
            var inflater = Inflater(
                input: base.assumingMemoryBound(to: UInt8.self), count: input.count,
                output: buffer.baseAddress!, physicalCapacity: buffer.count, limit: limit)
            defer { inflater.release() }
            do throws(InflateError) {
                consumed = try inflater.run()
                if inflater.out.isOwned {
                    moved = Array(UnsafeBufferPointer(start: inflater.out.start, count: inflater.produced))
                    count = 0
                } else {
                    count = inflater.produced
                }
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return (moved ?? direct, consumed)
    }
}
