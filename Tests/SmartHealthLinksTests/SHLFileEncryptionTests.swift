import ByteEncodings
import Crypto
import Foundation
import SmartHealthLinks
import Testing

/// JWE `dir`/`A256GCM` both ways: the IG's vectors, round trips, and every refusal.
@Suite struct SHLFileEncryptionTests {
    /// The spec's "Example Encryption": decrypted, the card file byte for byte, with its `cty`.
    @Test func decryptsTheSpecExampleToTheCardFile() throws {
        let file = try SHLFileEncryption.decrypt(SHLVectors.text("spec-example-enc.txt"), key: SHLVectors.key())
        let expected = try SHLVectors.specExampleCardFile()
        #expect(file.contentType == SHLContentType.smartHealthCard)
        #expect(file.plaintext == expected)
    }

    /// The same file, key and IV give the spec's JWE exactly: header member order, AAD, IV and tag.
    @Test func reproducesTheSpecExampleWithItsIV() throws {
        let expected = try SHLVectors.text("spec-example-enc.txt")
        let iv = try Base64URL.decode("B9Bd5AW751az-gEx")
        let jwe = try SHLFileEncryption.encrypt(
            SHLVectors.specExampleCardFile(), contentType: SHLContentType.smartHealthCard, key: SHLVectors.key(), compress: false, iv: iv
        )
        #expect(jwe == expected)
    }

    /// `IPS_IG-bundle-01-enc.txt` has no `cty` (and a `kid`): tolerated; 60,973 bytes out.
    @Test func decryptsTheIPSExampleWithoutContentType() throws {
        let file = try SHLFileEncryption.decrypt(SHLVectors.text("IPS_IG-bundle-01-enc.txt"), key: SHLVectors.key())
        #expect(file.contentType == nil)
        let expected = try SHLVectors.data("IPS_IG-bundle-01.json")
        #expect(expected.count == 60_973)
        #expect(file.plaintext == expected)
        // Without a cty there is nothing to disagree with the manifest's content type.
        let typed = try SHLFileEncryption.decrypt(
            SHLVectors.text("IPS_IG-bundle-01-enc.txt"), key: SHLVectors.key(), expectedContentType: SHLContentType.fhirJSON
        )
        #expect(typed.plaintext == expected)
    }

    /// The IG's CARIN link serves a signed card (a compact JWS), not a JWE.
    @Test func refusesTheCARINJWSAsNotEncrypted() throws {
        let served = try SHLVectors.text("CARIN_INS_CD-bundle-01-enc.txt")
        #expect(throws: SHLError.notEncrypted(.compactJWS)) { try SHLFileEncryption.decrypt(served, key: SHLVectors.key()) }
        #expect(throws: SHLError.notEncrypted(.json)) {
            try SHLFileEncryption.decrypt(#"{"verifiableCredential":["a.b.c"]}"#, key: SHLVectors.key())
        }
        let error = SHLError.notEncrypted(.compactJWS)
        #expect(error.code == "shl.notEncrypted")
    }

    @Test func roundTripsWithAndWithoutCompression() throws {
        let key = SHLKey.random()
        let plaintext = Data(String(repeating: #"{"resourceType":"Immunization","status":"completed"},"#, count: 300).utf8)
        for compress in [false, true] {
            let jwe = try SHLFileEncryption.encrypt(plaintext, contentType: SHLContentType.fhirJSON, key: key, compress: compress)
            let parts = jwe.split(separator: ".", omittingEmptySubsequences: false)
            #expect(parts.count == 5)
            #expect(parts[1].isEmpty)
            #expect(try Base64URL.decode(String(parts[2])).count == 12)
            #expect(try Base64URL.decode(String(parts[4])).count == 16)
            let headerBytes = try Base64URL.decode(String(parts[0]))
            let header = String(decoding: headerBytes, as: UTF8.self)
            let expectedHeader = compress
                ? #"{"alg":"dir","enc":"A256GCM","cty":"application/fhir+json","zip":"DEF"}"#
                : #"{"alg":"dir","enc":"A256GCM","cty":"application/fhir+json"}"#
            #expect(header == expectedHeader)
            let ciphertextLength = try Base64URL.decode(String(parts[3])).count
            if compress { #expect(ciphertextLength < plaintext.count / 4) } else { #expect(ciphertextLength == plaintext.count) }

            let file = try SHLFileEncryption.decrypt(jwe, key: key, expectedContentType: SHLContentType.fhirJSON)
            #expect(file.contentType == SHLContentType.fhirJSON)
            #expect(file.plaintext == plaintext)
        }
        // An empty file survives too.
        let empty = try SHLFileEncryption.encrypt(Data(), contentType: SHLContentType.fhirJSON, key: key, compress: true)
        #expect(try SHLFileEncryption.decrypt(empty, key: key).plaintext.isEmpty)
    }

    /// Two encryptions of one file under one key never share an IV (an `L` link's updates).
    @Test func usesAFreshIVEveryTime() throws {
        let key = SHLKey.random()
        let plaintext = Data("the same file".utf8)
        var ivs: Set<String> = []
        var texts: Set<String> = []
        for _ in 0..<50 {
            let jwe = try SHLFileEncryption.encrypt(plaintext, contentType: SHLContentType.fhirJSON, key: key, compress: false)
            let parts = jwe.split(separator: ".", omittingEmptySubsequences: false)
            ivs.insert(String(parts[2]))
            texts.insert(jwe)
            #expect(try SHLFileEncryption.decrypt(jwe, key: key).plaintext == plaintext)
        }
        #expect(ivs.count == 50)
        #expect(texts.count == 50)
    }

    /// Any altered part, or another key, fails authentication and yields nothing.
    @Test func refusesAlteredFilesAndWrongKeys() throws {
        let key = try SHLVectors.key()
        let jwe = try SHLVectors.text("spec-example-enc.txt")
        let parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)

        for index in [2, 3, 4] {
            var altered = parts
            altered[index] = Self.flipCharacter(in: altered[index], at: 5)
            #expect(throws: SHLError.decryptionFailed, "part \(index)") {
                try SHLFileEncryption.decrypt(altered.joined(separator: "."), key: key)
            }
        }
        // The header is the AAD: a header that still parses but was re-encoded fails too.
        var reheadered = parts
        reheadered[0] = Base64URL.encode(#"{"alg":"dir","enc":"A256GCM","cty":"application/fhir+json"}"#.utf8)
        #expect(throws: SHLError.decryptionFailed) { try SHLFileEncryption.decrypt(reheadered.joined(separator: "."), key: key) }

        #expect(throws: SHLError.decryptionFailed) { try SHLFileEncryption.decrypt(jwe, key: SHLKey.random()) }
        #expect(SHLError.decryptionFailed.code == "shl.decrypt")
    }

    @Test func refusesWhatIsNotADirA256GCMJWE() throws {
        let key = try SHLVectors.key()
        let jwe = try SHLVectors.text("spec-example-enc.txt")
        let parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func with(header: String) -> String {
            ([Base64URL.encode(header.utf8)] + parts.dropFirst()).joined(separator: ".")
        }

        #expect(throws: SHLError.malformedJWE(.algorithm("A256KW"))) {
            try SHLFileEncryption.decrypt(with(header: #"{"alg":"A256KW","enc":"A256GCM"}"#), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.algorithm(nil))) {
            try SHLFileEncryption.decrypt(with(header: #"{"enc":"A256GCM"}"#), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.encryption("A128GCM"))) {
            try SHLFileEncryption.decrypt(with(header: #"{"alg":"dir","enc":"A128GCM"}"#), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.compression("GZIP"))) {
            try SHLFileEncryption.decrypt(with(header: #"{"alg":"dir","enc":"A256GCM","zip":"GZIP"}"#), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.criticalHeader)) {
            try SHLFileEncryption.decrypt(with(header: #"{"alg":"dir","enc":"A256GCM","crit":["exp"]}"#), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.memberType("cty"))) {
            try SHLFileEncryption.decrypt(with(header: #"{"alg":"dir","enc":"A256GCM","cty":7}"#), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.headerNotJSONObject)) {
            try SHLFileEncryption.decrypt(with(header: "[1]"), key: key)
        }
        #expect(throws: SHLError.malformedJWE(.partCount(4))) {
            try SHLFileEncryption.decrypt(parts.dropLast().joined(separator: "."), key: key)
        }
        var withKey = parts
        withKey[1] = "AAAA"
        #expect(throws: SHLError.malformedJWE(.encryptedKeyNotEmpty(length: 4))) {
            try SHLFileEncryption.decrypt(withKey.joined(separator: "."), key: key)
        }
        var shortIV = parts
        shortIV[2] = Base64URL.encode([UInt8](repeating: 1, count: 16))
        #expect(throws: SHLError.malformedJWE(.ivLength(16))) { try SHLFileEncryption.decrypt(shortIV.joined(separator: "."), key: key) }
        var shortTag = parts
        shortTag[4] = Base64URL.encode([UInt8](repeating: 1, count: 12))
        #expect(throws: SHLError.malformedJWE(.tagLength(12))) { try SHLFileEncryption.decrypt(shortTag.joined(separator: "."), key: key) }
        var padded = parts
        padded[3] += "="
        do {
            _ = try SHLFileEncryption.decrypt(padded.joined(separator: "."), key: key)
            Issue.record("a padded ciphertext decrypted")
        } catch {
            guard case .malformedJWE(.notBase64URL(.ciphertext, _)) = error else { Issue.record("\(error)"); return }
            #expect(error.code == "shl.jwe")
        }
    }

    /// A `cty` that disagrees with the manifest's `contentType` is refused (case aside).
    @Test func refusesAContentTypeOtherThanTheManifests() throws {
        let key = try SHLVectors.key()
        let jwe = try SHLVectors.text("spec-example-enc.txt")
        #expect(throws: SHLError.contentType(expected: SHLContentType.fhirJSON, found: SHLContentType.smartHealthCard)) {
            try SHLFileEncryption.decrypt(jwe, key: key, expectedContentType: SHLContentType.fhirJSON)
        }
        let file = try SHLFileEncryption.decrypt(jwe, key: key, expectedContentType: "Application/SMART-Health-Card")
        let expected = try SHLVectors.specExampleCardFile()
        #expect(file.plaintext == expected)
    }

    /// Inflation stops at the limit (an inflate bomb); an uncompressed file over it is refused
    /// before decryption.
    @Test func capsTheContentSize() throws {
        let key = SHLKey.random()
        let bomb = Data(count: 1 << 20)
        let compressed = try SHLFileEncryption.encrypt(bomb, contentType: SHLContentType.fhirJSON, key: key, compress: true)
        #expect(compressed.utf8.count < 10_000)
        #expect(throws: SHLError.tooLarge(limit: 4096)) { try SHLFileEncryption.decrypt(compressed, key: key, limit: 4096) }
        #expect(try SHLFileEncryption.decrypt(compressed, key: key, limit: 1 << 20).plaintext == bomb)

        let plain = try SHLFileEncryption.encrypt(Data(count: 5000), contentType: SHLContentType.fhirJSON, key: key, compress: false)
        #expect(throws: SHLError.tooLarge(limit: 4096)) { try SHLFileEncryption.decrypt(plain, key: key, limit: 4096) }
        #expect(SHLError.tooLarge(limit: 4096).code == "shl.tooLarge")
        // The IPS example (60,973 bytes) is well inside the default limit.
        #expect(SHLFileEncryption.defaultLimit == 16 << 20)
    }

    /// `zip: DEF` over bytes that are not raw DEFLATE: an inflate error, not garbage.
    @Test func reportsACorruptDeflateStream() throws {
        let key = SHLKey.random()
        // Hand-made JWE: the header says zip, the plaintext is not DEFLATE (block type 3).
        let header = Base64URL.encode(#"{"alg":"dir","enc":"A256GCM","zip":"DEF"}"#.utf8)
        let jwe = try Self.seal(Data([0x07, 0x00, 0x00]), header: header, key: key)
        do {
            _ = try SHLFileEncryption.decrypt(jwe, key: key)
            Issue.record("a corrupt stream inflated")
        } catch {
            guard case .inflate(_) = error else { Issue.record("\(error)"); return }
            #expect(error.code == "shl.inflate")
        }
    }

    // MARK: Helpers

    /// `text` with the character at `offset` replaced by another base64url character.
    static func flipCharacter(in text: String, at offset: Int) -> String {
        var characters = Array(text)
        characters[offset] = characters[offset] == "A" ? "B" : "A"
        return String(characters)
    }

    /// A JWE with a protected header of the test's choosing, sealed directly with swift-crypto
    /// (the library writes only the headers the spec asks for).
    static func seal(_ content: Data, header: String, key: SHLKey) throws -> String {
        let nonce = AES.GCM.Nonce()
        let box = try AES.GCM.seal(content, using: SymmetricKey(data: key.bytes), nonce: nonce, authenticating: Data(header.utf8))
        return [header, "", Base64URL.encode(Array(nonce)), Base64URL.encode(box.ciphertext), Base64URL.encode(box.tag)]
            .joined(separator: ".")
    }
}
