import ByteEncodings
import Foundation
import Testing

/// Base64url as JWS needs it: RFC 4648 §5 without padding, one accepted text per byte string.
@Suite struct Base64URLTests {
    /// Foundation's standard base64 with the URL alphabet and no padding: an independent encoder.
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test func encodesAsRFC4648AndDecodesBack() throws {
        // RFC 4648 §10's vectors, unpadded.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
        }
        var generator = SystemRandomNumberGenerator()
        for count in 0..<200 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(text == Self.reference(bytes))
            #expect(try Base64URL.decode(text) == bytes)
        }
        // The two characters that differ from standard base64.
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test func rejectsPaddingWhitespaceAndTheStandardAlphabet() {
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 2)) { try Base64URL.decode("Zg==") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 3)) { try Base64URL.decode("Zm9 Yg") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 0)) { try Base64URL.decode("+_8A") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 1)) { try Base64URL.decode("-/8") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 4)) { try Base64URL.decode("Zm9v\nYmF") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 2)) { try Base64URL.decode("Zm\u{E9}") }
    }

    @Test func rejectsImpossibleLengthsAndNonCanonicalTexts() {
        #expect(throws: Base64URL.DecodingError.invalidLength) { try Base64URL.decode("Z") }
        #expect(throws: Base64URL.DecodingError.invalidLength) { try Base64URL.decode("Zm9vY") }
        // "Zh" and "Zm9" carry bits past the last byte: the canonical texts are "Zg" and "Zm8".
        #expect(throws: Base64URL.DecodingError.nonCanonical) { try Base64URL.decode("Zh") }
        #expect(throws: Base64URL.DecodingError.nonCanonical) { try Base64URL.decode("Zm9") }
        // Every other final character of a two-character group is non-canonical.
        for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" {
            let text = "Z" + String(c)
            let canonical = "AQgw".contains(c)
            #expect((try? Base64URL.decode(text)) != nil || !canonical, "\(text)")
            #expect((try? Base64URL.decode(text)) == nil || canonical, "\(text)")
        }
    }

    @Test func namesTheAlphabet() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(Base64URL.isAlphabetByte(byte) == alphabet.contains(byte))
        }
    }

    @Test func decodesFromBytes() throws {
        let text = Array("Zm9vYmFy".utf8)
        #expect(try text.withUnsafeBufferPointer { try Base64URL.decode($0) } == Array("foobar".utf8))
    }
}
