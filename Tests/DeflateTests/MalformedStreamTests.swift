import CZlib
import Deflate
import Testing
import ZlibReference

/// Every way a stream can be malformed fails with its own error, and zlib agrees it fails.
@Suite struct MalformedStreamTests {
    private let fixedLit = CanonicalCode.fixedLiteralLength
    private let fixedDist = CanonicalCode.fixedDistance

    /// Expects our error, and that zlib's raw inflate rejects the stream too.
    private func expectFailure(_ stream: [UInt8], _ expected: InflateError, limit: Int = 1 << 20,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: expected, sourceLocation: sourceLocation) { try Inflate.raw(stream, limit: limit) }
        #expect(ZlibOracle.inflate(stream, limit: limit) == .failed, "zlib accepts it", sourceLocation: sourceLocation)
    }

    /// Expects success with this output, and that zlib agrees.
    private func expectSuccess(_ stream: [UInt8], _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            #expect(try Inflate.raw(stream, limit: 1 << 20) == expected, sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
        #expect(ZlibOracle.inflate(stream, limit: 1 << 20) == .inflated(expected), sourceLocation: sourceLocation)
    }

    // MARK: Block structure

    @Test func rejectsBlockTypeThree() {
        var w = StreamWriter()
        w.blockHeader(final: true, type: 3)
        expectFailure(w.bytes, .corrupt(.invalidBlockType))
        // gzip's magic 1F 8B reads as a final block of type 3.
        expectFailure([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0x03, 0x00], .corrupt(.invalidBlockType))
    }

    @Test func rejectsAZlibWrappedStreamAsCorrupt() throws {
        let text = Array(#"{"iss":"https://spec.smarthealth.cards/examples/issuer","nbf":1620847989}"#.utf8)
        for level in [Int32(1), 6, 9] {
            let wrapped = ZlibOracle.compress(text, level: level, windowBits: 15)
            #expect(wrapped[0] == 0x78)
            #expect(ZlibOracle.inflate(wrapped, limit: 1 << 20) == .failed)
            do {
                _ = try Inflate.raw(wrapped, limit: 1 << 20)
                Issue.record("a zlib-wrapped stream inflated as raw DEFLATE")
            } catch {
                guard case .corrupt = error else { Issue.record("expected corrupt, got \(error)"); continue }
            }
        }
    }

    @Test func rejectsStoredBlockLengthsThatDoNotComplementEachOther() {
        expectFailure([0x01, 0x05, 0x00, 0x00, 0x00] + Array("hello".utf8), .corrupt(.storedLengthMismatch(length: 5, complement: 0)))
        expectFailure([0x01, 0x05, 0x00, 0xFA, 0xFE] + Array("hello".utf8), .corrupt(.storedLengthMismatch(length: 5, complement: 0xFEFA)))
    }

    @Test func inflatesStoredBlocks() {
        expectSuccess([0x01, 0x05, 0x00, 0xFA, 0xFF] + Array("hello".utf8), Array("hello".utf8))
        expectSuccess([0x00, 0x02, 0x00, 0xFD, 0xFF, 0x61, 0x62, 0x01, 0x00, 0x00, 0xFF, 0xFF], Array("ab".utf8))
    }

    @Test func reportsTruncationInsideAStoredBlock() {
        let stream: [UInt8] = [0x01, 0x05, 0x00, 0xFA, 0xFF] + Array("hello".utf8)
        for n in 0..<stream.count { expectFailure(Array(stream[..<n]), .truncated) }
    }

    @Test func reportsEveryProperPrefixOfAValidStreamAsTruncated() throws {
        for (level, strategy) in [(Int32(9), Z_DEFAULT_STRATEGY), (6, Z_FIXED), (0, Z_DEFAULT_STRATEGY), (1, Z_HUFFMAN_ONLY)] {
            let data = TestData.text(3_000, seed: UInt64(level))
            let stream = ZlibOracle.compress(data, level: level, strategy: strategy)
            #expect(try Inflate.raw(stream, limit: data.count) == data)
            for n in 0..<stream.count {
                #expect(throws: InflateError.truncated, "level \(level), \(n) of \(stream.count) bytes") {
                    try Inflate.raw(Array(stream[..<n]), limit: data.count)
                }
            }
        }
    }

    @Test func countsWholeBytesAfterTheFinalBlockAsTrailing() throws {
        let data = TestData.text(1_000, seed: 3)
        let stream = ZlibOracle.compress(data, level: 9)
        expectFailure(stream + [0x00], .trailingBytes(count: 1))
        expectFailure(stream + [0x03, 0x00, 0x42], .trailingBytes(count: 3))
        // A second stream after the first is trailing data too.
        expectFailure(stream + stream, .trailingBytes(count: stream.count))
    }

    @Test func ignoresPaddingBitsInTheLastByte() {
        // Final fixed block: 'a', end of block, then padding bits set to one.
        var w = StreamWriter()
        w.blockHeader(final: true, type: 1)
        w.symbol(Int(UInt8(ascii: "a")), fixedLit)
        w.symbol(256, fixedLit)
        let used = w.bytes
        var padded = w
        while padded.bytes.count == used.count { padded.bits(1, 1) }
        var bytes = used
        bytes[bytes.count - 1] = padded.bytes[used.count - 1]
        #expect(bytes != used)
        expectSuccess(bytes, Array("a".utf8))
    }

    // MARK: Fixed Huffman blocks

    @Test func rejectsLiteralLengthSymbols286And287() {
        for symbol in [286, 287] {
            var w = StreamWriter()
            w.blockHeader(final: true, type: 1)
            w.symbol(Int(UInt8(ascii: "x")), fixedLit)
            w.symbol(symbol, fixedLit)
            w.bits(0, 16)
            expectFailure(w.bytes, .corrupt(.invalidLiteralLengthSymbol))
        }
    }

    @Test func rejectsDistanceSymbols30And31() {
        for symbol in [30, 31] {
            var w = StreamWriter()
            w.blockHeader(final: true, type: 1)
            for _ in 0..<4 { w.symbol(Int(UInt8(ascii: "x")), fixedLit) }
            w.symbol(257, fixedLit)  // length 3
            w.symbol(symbol, fixedDist)
            w.bits(0, 24)
            expectFailure(w.bytes, .corrupt(.invalidDistanceSymbol))
        }
    }

    @Test func rejectsADistanceBeforeTheStartOfTheOutput() {
        var w = StreamWriter()
        w.blockHeader(final: true, type: 1)
        w.symbol(Int(UInt8(ascii: "a")), fixedLit)
        w.symbol(257, fixedLit)  // length 3
        w.symbol(1, fixedDist)   // distance 2
        w.symbol(256, fixedLit)
        expectFailure(w.bytes, .corrupt(.distanceTooFarBack(distance: 2, available: 1)))

        // The same, far from the end of the input (the fast loop).
        var long = StreamWriter()
        long.blockHeader(final: true, type: 1)
        for _ in 0..<100 { long.symbol(Int(UInt8(ascii: "b")), fixedLit) }
        long.symbol(257, fixedLit)
        long.symbol(14, fixedDist)  // base 129, 6 extra bits
        long.bits(0, 6)
        for _ in 0..<100 { long.symbol(Int(UInt8(ascii: "b")), fixedLit) }
        long.symbol(256, fixedLit)
        expectFailure(long.bytes, .corrupt(.distanceTooFarBack(distance: 129, available: 100)))
    }

    @Test func copiesOverlappingMatchesAtEveryShortDistance() {
        for distance in 1...12 {
            var w = StreamWriter()
            w.blockHeader(final: true, type: 1)
            let seed = (0..<distance).map { UInt8(ascii: "a") + UInt8($0) }
            for b in seed { w.symbol(Int(b), fixedLit) }
            w.symbol(284, fixedLit)  // base 227, 5 extra bits: 227 + 30 = 257
            w.bits(30, 5)
            // Distance codes 0…3 are distances 1…4; then base and extra bits.
            let (code, extraBits, extra) = Self.distanceCode(distance)
            w.symbol(code, fixedDist)
            w.bits(extra, extraBits)
            w.symbol(256, fixedLit)
            var expected = seed
            for i in 0..<257 { expected.append(expected[expected.count - distance]); _ = i }
            expectSuccess(w.bytes, expected)
        }
    }

    static func distanceCode(_ distance: Int) -> (Int, Int, Int) {
        let base = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                    4097, 6145, 8193, 12289, 16385, 24577]
        let code = base.lastIndex { $0 <= distance }!
        return (code, max(0, code / 2 - 1), distance - base[code])
    }

    // MARK: Dynamic block headers

    @Test func rejectsMoreThan286LiteralLengthOr30DistanceCodes() {
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthCount: 287, distanceCount: 30, symbols: [])
        expectFailure(w.bytes, .corrupt(.tooManySymbols(literalLengthCodes: 287, distanceCodes: 30)))
        var v = StreamWriter()
        v.dynamicHeader(final: true, literalLengthCount: 286, distanceCount: 31, symbols: [])
        expectFailure(v.bytes, .corrupt(.tooManySymbols(literalLengthCodes: 286, distanceCodes: 31)))
    }

    @Test func rejectsAnOverSubscribedOrIncompleteCodeLengthCode() {
        var over = StreamWriter()
        over.dynamicHeader(final: true, literalLengthCount: 257, distanceCount: 1,
                           codeLengthLengths: [Int](repeating: 1, count: 19), symbols: [])
        over.bits(0, 64)
        expectFailure(over.bytes, .corrupt(.invalidCodeLengths(.codeLength, .overSubscribed)))

        var incomplete = StreamWriter()
        var lengths = [Int](repeating: 0, count: 19)
        lengths[8] = 1
        lengths[0] = 2
        incomplete.dynamicHeader(final: true, literalLengthCount: 257, distanceCount: 1, codeLengthLengths: lengths, symbols: [])
        incomplete.bits(0, 64)
        expectFailure(incomplete.bytes, .corrupt(.invalidCodeLengths(.codeLength, .incomplete)))

        // No code-length codes at all.
        var none = StreamWriter()
        none.dynamicHeader(final: true, literalLengthCount: 257, distanceCount: 1,
                           codeLengthLengths: [Int](repeating: 0, count: 19), symbols: [])
        none.bits(0, 64)
        expectFailure(none.bytes, .corrupt(.invalidCodeLengths(.codeLength, .incomplete)))
    }

    @Test func rejectsARepeatWithNothingToRepeat() {
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthCount: 257, distanceCount: 1, symbols: [CodeLengthSymbol(16, extra: 0)])
        w.bits(0, 64)
        expectFailure(w.bytes, .corrupt(.repeatWithoutPreviousLength))
    }

    @Test func rejectsARepeatPastTheDeclaredLengths() {
        // 257 + 1 lengths: 138 + 119 zeros leave one; a repeat of three overruns it.
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthCount: 257, distanceCount: 1, symbols: [
            CodeLengthSymbol(18, extra: 127), CodeLengthSymbol(18, extra: 108), CodeLengthSymbol(17, extra: 0),
        ])
        w.bits(0, 64)
        expectFailure(w.bytes, .corrupt(.repeatPastEnd))
        // A repeat of the previous length may run from the literal/length into the distance lengths:
        // 255 zeros, a 1 for symbol 255, then "repeat 1 three times" for 256 and both distances.
        var ok = StreamWriter()
        ok.dynamicHeader(final: true, literalLengthCount: 257, distanceCount: 2, symbols: [
            CodeLengthSymbol(18, extra: 127), CodeLengthSymbol(18, extra: 106),
            CodeLengthSymbol(1), CodeLengthSymbol(16, extra: 0),
        ])
        let lit = CanonicalCode([Int](repeating: 0, count: 255) + [1, 1])
        ok.symbol(255, lit)
        ok.symbol(256, lit)
        expectSuccess(ok.bytes, [255])
    }

    @Test func rejectsABlockWithoutAnEndOfBlockCode() {
        var lit = CanonicalCode.completeLiteralLengthLengths
        lit[256] = 0
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthLengths: lit, distanceLengths: CanonicalCode.completeDistanceLengths)
        w.bits(0, 64)
        expectFailure(w.bytes, .corrupt(.missingEndOfBlock))
    }

    @Test func rejectsOverSubscribedAndIncompleteLiteralLengthCodes() {
        var over = CanonicalCode.completeLiteralLengthLengths
        over[0] = 7
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthLengths: over, distanceLengths: CanonicalCode.completeDistanceLengths)
        w.bits(0, 64)
        expectFailure(w.bytes, .corrupt(.invalidCodeLengths(.literalLength, .overSubscribed)))

        var incomplete = CanonicalCode.completeLiteralLengthLengths
        incomplete[285] = 0
        var v = StreamWriter()
        v.dynamicHeader(final: true, literalLengthLengths: incomplete, distanceLengths: CanonicalCode.completeDistanceLengths)
        v.bits(0, 64)
        expectFailure(v.bytes, .corrupt(.invalidCodeLengths(.literalLength, .incomplete)))
    }

    @Test func rejectsOverSubscribedAndIncompleteDistanceCodes() {
        var over = CanonicalCode.completeDistanceLengths
        over[29] = 1
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthLengths: CanonicalCode.completeLiteralLengthLengths, distanceLengths: over)
        w.bits(0, 64)
        expectFailure(w.bytes, .corrupt(.invalidCodeLengths(.distance, .overSubscribed)))

        var incomplete = CanonicalCode.completeDistanceLengths
        incomplete[29] = 0
        var v = StreamWriter()
        v.dynamicHeader(final: true, literalLengthLengths: CanonicalCode.completeLiteralLengthLengths, distanceLengths: incomplete)
        v.bits(0, 64)
        expectFailure(v.bytes, .corrupt(.invalidCodeLengths(.distance, .incomplete)))
    }

    @Test func acceptsASingleOneBitCodeAsZlibDoesButNotItsUnusedCodeword() {
        // Literal/length code: only end of block, with the 1-bit codeword 0.
        var lit = [Int](repeating: 0, count: 257)
        lit[256] = 1
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthLengths: lit, distanceLengths: [0])
        w.code(0, length: 1)
        expectSuccess(w.bytes, [])
        var v = StreamWriter()
        v.dynamicHeader(final: true, literalLengthLengths: lit, distanceLengths: [0])
        v.code(1, length: 1)
        v.bits(0, 16)
        expectFailure(v.bytes, .corrupt(.invalidLiteralLengthSymbol))
    }

    @Test func acceptsNoDistanceCodesUntilAMatchNeedsOne() {
        // Literals only with an empty distance code; then a length symbol fails.
        var lit = [Int](repeating: 0, count: 258)
        lit[65] = 2; lit[256] = 2; lit[257] = 1
        let code = CanonicalCode(lit)
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthLengths: lit, distanceLengths: [0])
        w.symbol(65, code)
        w.symbol(65, code)
        w.symbol(256, code)
        expectSuccess(w.bytes, [65, 65])
        var v = StreamWriter()
        v.dynamicHeader(final: true, literalLengthLengths: lit, distanceLengths: [0])
        v.symbol(65, code)
        v.symbol(257, code)
        v.bits(0, 32)
        expectFailure(v.bytes, .corrupt(.invalidDistanceSymbol))
    }

    @Test func decodesCodewordsLongerThanTheMainTable() {
        // Lengths up to 15 bits force subtables for both codes.
        var lit = [Int](repeating: 0, count: 286)
        // Kraft: 1/2 + 1/4 + … + 1/2^14 + 2 × 1/2^15 = 1 over symbols 'a'…'o' and 256.
        let symbols = (0..<15).map { Int(UInt8(ascii: "a")) + $0 } + [256]
        for (i, s) in symbols.enumerated() { lit[s] = min(i + 1, 15) }
        lit[257] = 0
        let code = CanonicalCode(lit)
        var w = StreamWriter()
        w.dynamicHeader(final: true, literalLengthLengths: lit, distanceLengths: [1, 1])
        var expected: [UInt8] = []
        for _ in 0..<40 {
            for s in symbols.dropLast().reversed() { w.symbol(s, code); expected.append(UInt8(s)) }
        }
        w.symbol(256, code)
        expectSuccess(w.bytes, expected)
    }
}
