import VerifiableRecords

/// The `shc:/` numeric text of a SMART Health Card QR code.
///
/// Each JWS character `c` becomes the two digits of `ord(c) − 45`. The deprecated multi-chunk
/// form `shc:/C/N/…` is read (chunks in any order) but never written.
public enum HealthCardQRText {
    /// The longest JWS that fits one version-22 QR code at error correction L.
    public static let maxSingleJWSLength = 1195
    /// The longest JWS chunk a multi-chunk card may carry.
    public static let maxChunkJWSLength = 1191

    /// One decoded QR text.
    public struct Chunk: Sendable, Hashable {
        /// 1-based chunk index, when chunked.
        public let index: Int?
        /// Number of chunks, when chunked.
        public let total: Int?
        /// The JWS text (or chunk of it).
        public let jws: String
    }

    /// Encodes a JWS as `shc:/` + digits.
    public static func encode(jws: String) -> String {
        var out = [UInt8]("shc:/".utf8)
        out.reserveCapacity(5 + jws.utf8.count * 2)
        for c in jws.utf8 {
            let v = c &- 45
            out.append(0x30 + v / 10)
            out.append(0x30 + v % 10)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes one QR text: the `shc:/` header, an optional `C/N/` chunk header, then digit pairs.
    public static func decode(_ text: String) throws(VerificationIssueError) -> Chunk {
        let b = Array(text.utf8)
        let prefix = Array("shc:/".utf8)
        guard b.count >= prefix.count, Array(b[0..<prefix.count]) == prefix else { throw VerificationIssueError(.qrHeader, headerProblem(b)) }
        var i = prefix.count
        var index: Int? = nil
        var total: Int? = nil
        // Chunk header: digits '/' digits '/'.
        if let slash = b[i...].firstIndex(of: 0x2F) {
            let first = b[i..<slash]
            guard let second = b[(slash + 1)...].firstIndex(of: 0x2F) else { throw VerificationIssueError(.qrChunks, "malformed chunk header") }
            let n = b[(slash + 1)..<second]
            guard let c = number(first), let t = number(n) else { throw VerificationIssueError(.qrChunks, "malformed chunk header") }
            guard c >= 1, t >= 1, c <= t else { throw VerificationIssueError(.qrChunks, "chunk \(c) of \(t) is out of range") }
            index = c
            total = t
            i = second + 1
        }
        let digits = b[i...]
        guard !digits.isEmpty else { throw VerificationIssueError(.qrNumeric, "no digits after the header") }
        if let bad = digits.firstIndex(where: { $0 < 0x30 || $0 > 0x39 }) {
            let trailing = digits[bad...].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            throw VerificationIssueError(.qrNumeric, trailing ? "whitespace after the digits at byte \(bad)" : "a character that is not a digit at byte \(bad)")
        }
        guard digits.count % 2 == 0 else { throw VerificationIssueError(.qrNumeric, "an odd number of digits (\(digits.count))") }
        var jws = [UInt8]()
        jws.reserveCapacity(digits.count / 2)
        var k = digits.startIndex
        while k < digits.endIndex {
            let v = (digits[k] - 0x30) * 10 + (digits[k + 1] - 0x30)
            guard v <= 77 else { throw VerificationIssueError(.qrNumeric, "digit pair \(v) at byte \(k) is above 77") }
            jws.append(v + 45)
            k += 2
        }
        return Chunk(index: index, total: total, jws: String(decoding: jws, as: UTF8.self))
    }

    /// Whether text names the `shc:` scheme, in any case and after any whitespace.
    ///
    /// Such text is meant as a card's QR text, so whatever is wrong with its header (`shc:56…`,
    /// `SHC:/…`) is reported as a QR header error rather than as some other kind of input.
    public static func namesScheme(_ bytes: some Collection<UInt8>) -> Bool {
        let text = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return text.prefix(4).map(lowercased).elementsEqual("shc:".utf8)
    }

    private static func lowercased(_ c: UInt8) -> UInt8 { (0x41...0x5A).contains(c) ? c | 0x20 : c }

    /// What is wrong with a header that is not exactly `shc:/`.
    private static func headerProblem(_ b: [UInt8]) -> String {
        if let first = b.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 { return "whitespace before the shc:/ header" }
        let lowered = b.prefix(5).map(lowercased)
        if lowered.elementsEqual("shc:/".utf8) { return "the header must be lowercase shc:/" }
        if lowered.prefix(4).elementsEqual("shc:".utf8) { return "shc: must be followed by / (shc:/)" }
        return "the text does not start with shc:/"
    }

    /// Assembles a card from one or more QR texts (chunks in any order).
    ///
    /// - Returns: the JWS and warnings (chunking is deprecated; unneeded or unbalanced chunks).
    public static func assemble(_ texts: [String]) throws(VerificationIssueError) -> (jws: String, warnings: [VerificationIssue]) {
        var chunks: [Chunk] = []
        for t in texts { chunks.append(try decode(t)) }
        return try assemble(chunks)
    }

    /// Assembles a card from chunks already decoded (in any order), so a reader that had to
    /// decode each text to sort it never decodes it again.
    public static func assemble(_ chunks: [Chunk]) throws(VerificationIssueError) -> (jws: String, warnings: [VerificationIssue]) {
        guard !chunks.isEmpty else { throw VerificationIssueError(.qrChunks, "no QR text") }
        if chunks.count == 1, chunks[0].total == nil { return (chunks[0].jws, []) }
        var warnings: [VerificationIssue] = []
        guard chunks.allSatisfy({ $0.total != nil }) else {
            throw VerificationIssueError(.qrChunks, "a multi-QR card mixes chunked and unchunked texts")
        }
        let totals = Set(chunks.compactMap(\.total))
        guard totals.count == 1, let total = totals.first else { throw VerificationIssueError(.qrChunks, "chunks disagree on the number of chunks: \(totals.sorted())") }
        var byIndex: [Int: Chunk] = [:]
        for c in chunks {
            guard let i = c.index else { continue }
            if byIndex[i] != nil { throw VerificationIssueError(.qrChunks, "chunk \(i) appears twice") }
            byIndex[i] = c
        }
        let missing = (1...total).filter { byIndex[$0] == nil }
        guard missing.isEmpty else { throw VerificationIssueError(.qrChunks, "missing chunk\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", ")) of \(total)") }
        for (i, c) in byIndex where c.jws.utf8.count > maxChunkJWSLength {
            throw VerificationIssueError(.qrChunks, "chunk \(i) carries \(c.jws.utf8.count) JWS characters; the limit is \(maxChunkJWSLength)")
        }
        let jws = (1...total).map { byIndex[$0]!.jws }.joined()
        if total == 1 {
            warnings.append(VerificationIssue(.qrChunks, "a single QR code must not carry a 1/1 chunk header"))
        } else {
            warnings.append(VerificationIssue(.qrChunks, "multi-QR chunking is deprecated since spec 1.3.0"))
            if jws.utf8.count <= maxSingleJWSLength { warnings.append(VerificationIssue(.qrChunks, "chunking was unnecessary: the JWS fits one QR code")) }
            let sizes = (1...total).map { byIndex[$0]!.jws.utf8.count }
            if let mx = sizes.max(), let mn = sizes.min(), mx - mn > 1, sizes.dropLast().contains(where: { $0 != sizes[0] }) {
                warnings.append(VerificationIssue(.qrChunks, "chunks are unbalanced: \(sizes.map(String.init).joined(separator: ", ")) characters"))
            }
        }
        return (jws, warnings)
    }

    private static func number(_ s: ArraySlice<UInt8>) -> Int? {
        guard !s.isEmpty, s.count <= 4, s.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !(s.count > 1 && s.first == 0x30) else { return nil }
        return Int(String(decoding: s, as: UTF8.self))
    }
}

/// A failed check raised as an error: its code and message.
public struct VerificationIssueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failed check's stable code and message; ``description`` prints both.
    public let issue: VerificationIssue

    /// Makes an error from the parts of a ``VerificationIssue``, for code that reports a failed check by throwing.
    public init(_ code: VerificationCode, _ message: String) { issue = VerificationIssue(code, message) }

    public var description: String { issue.description }
}
