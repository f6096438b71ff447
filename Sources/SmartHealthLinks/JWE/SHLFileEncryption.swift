import ByteEncodings
import Crypto
import Deflate
import Foundation

/// Encrypting and decrypting the files behind a link: JWE compact serialization (RFC 7516) with
/// `alg: dir` — the link's key is the content key — and `enc: A256GCM`.
///
/// A JWE is five base64url parts: the protected header, an empty encrypted key, a 96-bit IV, the
/// ciphertext and a 128-bit tag. The additional authenticated data is the ASCII of the first
/// part exactly as sent. `zip: DEF` means the plaintext was compressed with raw DEFLATE (RFC
/// 1951, no zlib header) before encryption.
public enum SHLFileEncryption {
    /// The only key management algorithm: `dir`.
    public static let algorithm = "dir"
    /// The only content encryption: `A256GCM`.
    public static let encryption = "A256GCM"
    /// The only compression: `DEF` (raw DEFLATE).
    public static let compression = "DEF"
    /// The default cap on a file's content after decryption and inflation: 16 MiB.
    public static let defaultLimit = 16 << 20

    /// The IV length of A256GCM in bytes: 12.
    static let ivByteCount = 12
    /// The tag length of A256GCM in bytes: 16.
    static let tagByteCount = 16

    /// Encrypts a file under a link's key, with a fresh random IV: encrypting the same file
    /// twice (an `L` link's update) never reuses an IV with the key.
    ///
    /// - Parameters:
    ///   - plaintext: the file's bytes.
    ///   - contentType: the `cty` header, one of ``SHLContentType``'s.
    ///   - key: the link's key.
    ///   - compress: whether to compress with raw DEFLATE first (`zip: DEF`).
    /// - Returns: the compact JWE.
    /// - Throws: ``SHLError/encryptionFailed`` if AES-GCM fails, which it should not.
    public static func encrypt(_ plaintext: Data, contentType: String, key: SHLKey, compress: Bool = false) throws(SHLError) -> String {
        let iv = Array(AES.GCM.Nonce())
        return try encrypt(plaintext, contentType: contentType, key: key, compress: compress, iv: iv)
    }

    /// Encrypts with a given IV, for reproducing published vectors in tests. Never use an IV
    /// twice with one key: AES-GCM then leaks the plaintexts and lets tags be forged.
    package static func encrypt(_ plaintext: Data, contentType: String, key: SHLKey, compress: Bool, iv: [UInt8]) throws(SHLError) -> String {
        guard iv.count == ivByteCount else { throw .encryptionFailed }
        let header = Base64URL.encode(JWEProtectedHeader.json(contentType: contentType, compressed: compress).utf8)
        let content = compress ? Data(Compress.raw(plaintext, level: .balanced)) : plaintext
        let sealed: AES.GCM.SealedBox
        do {
            let nonce = try AES.GCM.Nonce(data: iv)
            sealed = try AES.GCM.seal(content, using: key.symmetricKey, nonce: nonce, authenticating: Data(header.utf8))
        } catch {
            throw SHLError.encryptionFailed
        }
        return [header, "", Base64URL.encode(iv), Base64URL.encode(sealed.ciphertext), Base64URL.encode(sealed.tag)]
            .joined(separator: ".")
    }

    /// Decrypts a file with a link's key.
    ///
    /// Whitespace around the text is ignored (a file served with a final newline). A missing
    /// `cty` is tolerated, as the IG's own examples need; a `cty` that differs from
    /// `expectedContentType` (the manifest's `contentType`, compared without regard to case) is
    /// refused.
    ///
    /// - Parameters:
    ///   - jwe: the compact JWE, as served from a `location`, a `U` link or `embedded`.
    ///   - key: the link's key.
    ///   - expectedContentType: the content type the manifest gave the file, or `nil`.
    ///   - limit: the most bytes the content may have after inflation (an inflate bomb stops
    ///     here), and without `zip` the most bytes of ciphertext.
    /// - Returns: the header's `cty`, and the content (inflated when `zip: DEF`).
    /// - Throws: ``SHLError/notEncrypted(_:)`` for a compact JWS (three parts) or plain JSON;
    ///   ``SHLError/malformedJWE(_:)`` for anything else not a `dir`/`A256GCM` JWE;
    ///   ``SHLError/contentType(expected:found:)``; ``SHLError/decryptionFailed`` when the tag
    ///   does not verify (a wrong key, or altered bytes); ``SHLError/tooLarge(limit:)``;
    ///   ``SHLError/inflate(_:)``.
    public static func decrypt(
        _ jwe: String, key: SHLKey, expectedContentType: String? = nil, limit: Int = defaultLimit
    ) throws(SHLError) -> (contentType: String?, plaintext: Data) {
        // Bytes, not Characters: splitting a large file's String by grapheme clusters cost more
        // than decrypting it.
        let bytes = Array(jwe.utf8)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        let text = bytes[start..<end]
        if text.first == UInt8(ascii: "{") || text.first == UInt8(ascii: "[") { throw .notEncrypted(.json) }
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.count == 3 { throw .notEncrypted(.compactJWS) }
        guard parts.count == 5 else { throw .malformedJWE(.partCount(parts.count)) }

        let header = try JWEProtectedHeader(encoded: Substring(String(decoding: parts[0], as: UTF8.self)))
        guard parts[1].isEmpty else { throw .malformedJWE(.encryptedKeyNotEmpty(length: parts[1].count)) }
        let iv = try decodePart(parts[2], .iv)
        guard iv.count == ivByteCount else { throw .malformedJWE(.ivLength(iv.count)) }
        let ciphertext = try decodePart(parts[3], .ciphertext)
        let tag = try decodePart(parts[4], .tag)
        guard tag.count == tagByteCount else { throw .malformedJWE(.tagLength(tag.count)) }

        if let expected = expectedContentType, let found = header.contentType, found.lowercased() != expected.lowercased() {
            throw .contentType(expected: expected, found: found)
        }
        // AES-GCM's plaintext is as long as its ciphertext: an uncompressed file over the limit is
        // refused before any work.
        if !header.compressed, ciphertext.count > limit { throw .tooLarge(limit: limit) }

        let opened: Data
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
            opened = try AES.GCM.open(box, using: key.symmetricKey, authenticating: Data(parts[0]))
        } catch {
            throw SHLError.decryptionFailed
        }
        guard header.compressed else { return (header.contentType, opened) }

        let inflated = Result { () throws(InflateError) -> [UInt8] in try Inflate.raw(opened, limit: limit) }
        switch inflated {
        case .success(let bytes):
            return (header.contentType, Data(bytes))
        case .failure(.outputTooLarge(let cap)):
            throw .tooLarge(limit: cap)
        case .failure(let error):
            throw .inflate(error)
        }
    }

    /// One part of a compact JWE (its bytes), decoded as strict base64url.
    static func decodePart(_ bytes: ArraySlice<UInt8>, _ part: SHLError.JWEPart) throws(SHLError) -> [UInt8] {
        let decoded = bytes.withUnsafeBufferPointer { p in Result { () throws(Base64URL.DecodingError) -> [UInt8] in try Base64URL.decode(p) } }
        switch decoded {
        case .success(let bytes): return bytes
        case .failure(let error): throw .malformedJWE(.notBase64URL(part, error))
        }
    }

    /// One part of a compact JWE, decoded as strict base64url.
    static func decodePart(_ text: Substring, _ part: SHLError.JWEPart) throws(SHLError) -> [UInt8] {
        let encoded = String(text)
        let decoded = Result { () throws(Base64URL.DecodingError) -> [UInt8] in try Base64URL.decode(encoded) }
        switch decoded {
        case .success(let bytes): return bytes
        case .failure(let error): throw .malformedJWE(.notBase64URL(part, error))
        }
    }
}
