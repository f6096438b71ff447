/// How a compression level looks for matches (the meaning of zlib's configuration table).
struct MatchParameters {
    /// Whether to defer a match by one byte when the next byte starts a longer one.
    let lazy: Bool
    /// Lazy: after a match at least this long, search a quarter of the chain.
    let goodLength: Int
    /// Lazy: after a match at least this long, do not look for a longer one. Greedy: a match
    /// longer than this does not hash the positions inside it (they rarely start better ones).
    let maxLazy: Int
    /// Stop searching at a match this long.
    let niceLength: Int
    /// The most chain entries to try per search.
    let maxChain: Int

    init?(_ level: Compress.Level) {
        switch level {
        case .stored: return nil
        case .fast: (lazy, goodLength, maxLazy, niceLength, maxChain) = (false, 4, 16, 32, 32)
        case .balanced: (lazy, goodLength, maxLazy, niceLength, maxChain) = (true, 8, 16, 128, 128)
        case .best: (lazy, goodLength, maxLazy, niceLength, maxChain) = (true, 32, 258, 258, 4096)
        }
    }
}

/// LZ77 over one segment of the input: hash chains of 3-byte prefixes find earlier occurrences;
/// literals and matches collect in a symbol buffer that becomes a block when it fills.
struct MatchFinder {
    /// The most input one finder covers (positions are kept in 32 bits).
    static let maxSegment = 1 << 30
    /// Symbols per block, as zlib's default memory level: long enough for good codes, short
    /// enough for them to follow changes in the data.
    static let blockSymbols = 16384
    /// Matches of the minimum length further back than this cost more than their literals.
    private static let tooFar = 4096

    private let data: UnsafePointer<UInt8>
    private let count: Int
    private let parameters: MatchParameters
    private let hashShift: UInt32
    /// The latest position of each hash value (−1: none yet).
    private let head: UnsafeMutablePointer<Int32>
    private let headCount: Int
    /// For each position modulo the window, the previous position with the same hash.
    private let previous: UnsafeMutablePointer<Int32>
    private let windowMask: Int
    private let symbols: UnsafeMutablePointer<UInt32>
    private let symbolCapacity: Int
    private var symbolCount = 0
    /// The first input byte of the block being collected.
    private var blockStart = 0

    init(data: UnsafePointer<UInt8>, count: Int, parameters: MatchParameters) {
        self.data = data
        self.count = count
        self.parameters = parameters
        // Tables no larger than the input needs: a card payload should not clear 256 KiB.
        let sizeBits = Int.bitWidth - max(count, 1).leadingZeroBitCount
        let hashBits = min(15, max(8, sizeBits))
        hashShift = UInt32(32 - hashBits)
        headCount = 1 << hashBits
        head = .allocate(capacity: headCount)
        head.initialize(repeating: -1, count: headCount)
        let window = min(DeflateFormat.windowSize, 1 << max(8, sizeBits))
        // One less than the window, so a chain never reads a slot a newer position reused.
        windowMask = window - 1
        previous = .allocate(capacity: window)
        previous.initialize(repeating: -1, count: window)
        symbolCapacity = min(Self.blockSymbols, count + 1)
        symbols = .allocate(capacity: symbolCapacity)
    }

    func release() {
        head.deallocate()
        previous.deallocate()
        symbols.deallocate()
    }

    /// Compresses the segment into blocks; the last one is final if `final`.
    mutating func run(final: Bool, to writer: inout BitWriter) {
        let end = parameters.lazy ? lazyMatches(&writer) : greedyMatches(&writer)
        writeBlock(end: end, final: final, to: &writer)
    }

    // MARK: Parsing

    /// zlib's `deflate_fast`: take the longest match at each position.
    private mutating func greedyMatches(_ writer: inout BitWriter) -> Int {
        var i = 0
        while i < count {
            var length = 0
            var start = 0
            if i + DeflateFormat.minMatch <= count {
                let candidate = insert(i)
                let maxLength = min(DeflateFormat.maxMatch, count - i)
                (length, start) = longestMatch(at: i, candidate: candidate, longerThan: DeflateFormat.minMatch - 1,
                                               chain: parameters.maxChain, maxLength: maxLength)
            }
            if length >= DeflateFormat.minMatch {
                let end = i + length
                if length <= parameters.maxLazy {
                    var k = i + 1
                    while k < end, k + DeflateFormat.minMatch <= count {
                        _ = insert(k)
                        k += 1
                    }
                }
                i = end
                tally(BlockEncoder.match(length: length, distance: end - length - start), end: i, &writer)
            } else {
                i += 1
                tally(UInt32(data[i - 1]), end: i, &writer)
            }
        }
        return count
    }

    /// zlib's `deflate_slow`: a match found at one position is kept back while the next position
    /// is searched; if that finds a longer match, the first byte goes out as a literal instead.
    private mutating func lazyMatches(_ writer: inout BitWriter) -> Int {
        var i = 0
        var matchLength = DeflateFormat.minMatch - 1
        var matchStart = 0
        var pending = false  // whether data[i − 1] is waiting on the search at i
        while i < count {
            var candidate: Int32 = -1
            if i + DeflateFormat.minMatch <= count { candidate = insert(i) }
            let previousLength = matchLength
            let previousStart = matchStart
            matchLength = DeflateFormat.minMatch - 1
            let maxLength = min(DeflateFormat.maxMatch, count - i)
            if candidate >= 0, previousLength < parameters.maxLazy, previousLength < maxLength {
                let chain = previousLength >= parameters.goodLength ? parameters.maxChain >> 2 : parameters.maxChain
                let (length, start) = longestMatch(at: i, candidate: candidate, longerThan: previousLength, chain: chain, maxLength: maxLength)
                if length > previousLength, !(length == DeflateFormat.minMatch && i - start > Self.tooFar) {
                    matchLength = length
                    matchStart = start
                }
            }
            if previousLength >= DeflateFormat.minMatch, matchLength <= previousLength {
                // The match at i − 1 stands: hash the positions it covers and move past it.
                let end = i - 1 + previousLength
                var k = i + 1
                while k < end {
                    if k + DeflateFormat.minMatch <= count { _ = insert(k) }
                    k += 1
                }
                tally(BlockEncoder.match(length: previousLength, distance: i - 1 - previousStart), end: end, &writer)
                i = end
                pending = false
                matchLength = DeflateFormat.minMatch - 1
            } else if pending {
                tally(UInt32(data[i - 1]), end: i, &writer)
                i += 1
            } else {
                pending = true
                i += 1
            }
        }
        if pending { tally(UInt32(data[count - 1]), end: count, &writer) }
        return count
    }

    // MARK: Hash chains

    /// Adds position `p` (with at least 3 bytes from it) to its chain; returns the previous
    /// position with the same hash, or −1.
    @inline(__always)
    private func insert(_ p: Int) -> Int32 {
        let prefix = UInt32(data[p]) | UInt32(data[p + 1]) << 8 | UInt32(data[p + 2]) << 16
        let hash = Int((prefix &* 0x9E37_79B1) >> hashShift)
        let older = head[hash]
        previous[p & windowMask] = older
        head[hash] = Int32(truncatingIfNeeded: p)
        return older
    }

    /// The longest match for position `i` along the chain from `candidate` that is longer than
    /// `best` (which must be below `maxLength`); returns (length, start) or (0, 0) if none is.
    @inline(__always)
    private func longestMatch(at i: Int, candidate: Int32, longerThan best: Int, chain: Int, maxLength: Int) -> (Int, Int) {
        var best = best
        var bestStart = -1
        let nice = min(parameters.niceLength, maxLength)
        let scan = data + i
        var c = Int(candidate)
        var chainLeft = chain
        while c >= 0, i - c <= windowMask {
            let m = data + c
            // The bytes at the end of the best match so far decide most candidates at once.
            if m[best] == scan[best], m[best - 1] == scan[best - 1], m[0] == scan[0], m[1] == scan[1] {
                let length = Self.commonPrefix(m, scan, limit: maxLength)
                if length > best {
                    best = length
                    bestStart = c
                    if length >= nice { break }
                }
            }
            chainLeft -= 1
            let next = Int(previous[c & windowMask])
            if chainLeft == 0 || next >= c { break }
            c = next
        }
        return bestStart < 0 ? (0, 0) : (best, bestStart)
    }

    /// How many bytes from `a` and `b` agree, up to `limit`; compares eight at a time.
    @inline(__always)
    private static func commonPrefix(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, limit: Int) -> Int {
        var n = 0
        while n + 8 <= limit {
            let x = UnsafeRawPointer(a + n).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(b + n).loadUnaligned(as: UInt64.self)
            let difference = UInt64(littleEndian: x) ^ UInt64(littleEndian: y)
            if difference != 0 { return n + difference.trailingZeroBitCount >> 3 }
            n += 8
        }
        while n < limit, a[n] == b[n] { n += 1 }
        return n
    }

    // MARK: Blocks

    /// Adds a symbol that covers the input up to `end`; a full buffer becomes a block.
    @inline(__always)
    private mutating func tally(_ symbol: UInt32, end: Int, _ writer: inout BitWriter) {
        symbols[symbolCount] = symbol
        symbolCount += 1
        if symbolCount == symbolCapacity { writeBlock(end: end, final: false, to: &writer) }
    }

    private mutating func writeBlock(end: Int, final: Bool, to writer: inout BitWriter) {
        BlockEncoder.writeBlock(
            symbols: UnsafeBufferPointer(start: symbols, count: symbolCount), bytes: data + blockStart,
            byteCount: end - blockStart, final: final, to: &writer)
        symbolCount = 0
        blockStart = end
    }
}
