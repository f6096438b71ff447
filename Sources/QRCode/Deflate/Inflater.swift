/// Decompresses zlib (RFC 1950) and raw DEFLATE (RFC 1951) streams with a hard cap on
/// output size, so a decompression bomb stops as soon as it passes the cap.
public enum Inflater {
    /// Decompresses a zlib stream and checks its Adler-32.
    /// - Parameters:
    ///   - input: the zlib stream.
    ///   - maxOutputBytes: decompressing more than this throws `outputLimitExceeded`.
    public static func inflateZlib(_ input: [UInt8], maxOutputBytes: Int) throws(InflateError) -> [UInt8] {
        guard input.count >= 2 else { throw .truncated(offset: input.count) }
        let cmf = input[0], flg = input[1]
        guard cmf & 0x0F == 8 else { throw .unsupportedCompressionMethod(Int(cmf & 0x0F)) }
        guard cmf >> 4 <= 7, (Int(cmf) << 8 | Int(flg)) % 31 == 0 else { throw .invalidZlibHeader(cmf: cmf, flg: flg) }
        guard flg & 0x20 == 0 else { throw .presetDictionaryNotSupported }
        let (output, end) = try inflateRaw(input, from: 2, maxOutputBytes: maxOutputBytes)
        guard end + 4 <= input.count else { throw .truncated(offset: input.count) }
        let expected = UInt32(input[end]) << 24 | UInt32(input[end + 1]) << 16 | UInt32(input[end + 2]) << 8 | UInt32(input[end + 3])
        let actual = Adler32.checksum(output)
        guard expected == actual else { throw .adler32Mismatch(expected: expected, actual: actual) }
        return output
    }

    /// Decompresses raw DEFLATE data starting at byte `start`.
    /// - Returns: the output and the offset of the first byte after the stream.
    public static func inflateRaw(_ input: [UInt8], from start: Int = 0, maxOutputBytes: Int) throws(InflateError) -> (output: [UInt8], end: Int) {
        var state = InflateState(limit: Swift.max(0, maxOutputBytes))
        defer { state.release() }
        let end: Int = try input.withUnsafeBufferPointer { (buffer) throws(InflateError) -> Int in
            var reader = DeflateBitReader(buffer, start: start)
            try state.run(&reader)
            return reader.byteOffsetAfterAlign()
        }
        return (state.finish(), end)
    }
}
