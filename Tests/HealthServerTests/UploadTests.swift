import CBOR
import CardScanning
import Crypto
import DigitalCovidCertificates
import FHIR
import Foundation
@testable import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import QRCode
import SmartHealthCards
import Synchronization
import Deflate
import SwiftASN1
import Testing
import TestSupport
import X509

/// Adding records from the browser: card files, `shc:/` and `HC1:` text, QR images and FHIR files,
/// verified on the way in with the reports the command line gives; forged and oversized uploads refused.
@Suite struct UploadTests {
    static let issuer = "https://spec.smarthealth.cards/examples/issuer"

    static func world(_ engine: ServerEngine, dsc: DocumentSignerCertificate? = nil, maxUpload: Int? = nil) async throws -> ServerWorld {
        try await ServerWorld(engine) { c in
            c.cardVerifier = SmartHealthCardVerifier(keys: IssuerFilesKeySource(issuer: issuer, directory: FixtureFiles.url("vectors/shc-spec/issuer")))
            c.dccVerifier = DCCVerifier(trustList: DSCTrustList(dsc.map { [$0] } ?? []))
            if let maxUpload { c.limits.maxUploadBytes = maxUpload }
        }
    }

    /// A multipart body with the form's token, an optional file and optional text.
    static func multipart(csrf: String, file: (name: String, data: Data)? = nil, text: String? = nil, fields: [(String, String)] = []) -> (String, ByteBuffer) {
        let boundary = "----hr\(UUID().uuidString)"
        var body = Data()
        func field(_ name: String, _ value: Data, filename: String? = nil) {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\(filename.map { "; filename=\"\($0)\"" } ?? "")\r\n".utf8)
            if filename != nil { body += Data("Content-Type: application/octet-stream\r\n".utf8) }
            body += Data("\r\n".utf8) + value + Data("\r\n".utf8)
        }
        field("csrf", Data(csrf.utf8))
        if let file { field("file", file.data, filename: file.name) }
        if let text { field("text", Data(text.utf8)) }
        for (name, value) in fields { field(name, Data(value.utf8)) }
        body += Data("--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", ByteBuffer(bytes: body))
    }

    static func upload(
        _ client: some TestClientProtocol, cookie: String, file: (name: String, data: Data)? = nil, text: String? = nil, fields: [(String, String)] = []
    ) async throws -> TestResponse {
        let (_, csrf) = try await client.page("/upload", cookie: cookie)
        let (type, body) = multipart(csrf: csrf, file: file, text: text, fields: fields)
        return try await client.execute(uri: "/upload", method: .post, headers: [.contentType: type, .cookie: cookie], body: body)
    }

    @Test(arguments: ServerEngine.all)
    func cardsTextImagesAndFHIRFilesAreAddedWithTheirReports(engine: ServerEngine) async throws {
        let w = try await Self.world(engine)
        try await w.test { client in
            let cookie = try await client.signIn()
            let card = try FixtureFiles.data("vectors/shc-spec/example-00-e-file.smart-health-card")
            let first = try await Self.upload(client, cookie: cookie, file: ("example-00.smart-health-card", card)).text
            #expect(first.contains("Verified and added") && first.contains(Self.issuer), "\(first)")
            let again = try await Self.upload(client, cookie: cookie, file: ("example-00.smart-health-card", card)).text
            #expect(again.contains("Verified; already stored"))

            let qr = try String(contentsOf: FixtureFiles.url("vectors/shc-spec/example-01-f-qr-code-numeric-value-0.txt"), encoding: .utf8)
            #expect(try await Self.upload(client, cookie: cookie, text: qr).text.contains("Verified and added"))

            let tampered = try FixtureFiles.data("vectors/shc-spec/example-00-d-jws.txt")
            var bytes = [UInt8](tampered)
            bytes[bytes.count - 10] = bytes[bytes.count - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let bad = try await Self.upload(client, cookie: cookie, file: ("bad.txt", Data(bytes))).text
            #expect(bad.contains("Not valid; not added") && bad.contains("signature.invalid"))

            let fhir = #"{"resourceType":"Condition","id":"up1","code":{"text":"Uploaded asthma"},"onsetDateTime":"2020-01-01"}"#
            let imported = try await Self.upload(client, cookie: cookie, file: ("condition.json", Data(fhir.utf8))).text
            #expect(imported.contains("Imported: 1 new"))
            #expect(try await client.call(.get, "/search?q=uploaded", cookie: cookie).text.contains("Uploaded asthma"))
            let junk = try await Self.upload(client, cookie: cookie, file: ("notes.json", Data(#"{"hello":"world"}"#.utf8))).text
            #expect(junk.contains("Not imported"))

            let cards = try await w.store.verifiableRecords(VerifiableRecordQuery())
            #expect(cards.count == 2)
        }
    }

    @Test func aPNGOfACardAndAnHC1CertificateAreRead() async throws {
        // Certificates are checked at the store's clock, as every way in checks them.
        let signer = try TestDSC.make(at: MovableTime.start)
        let w = try await Self.world(.sqlite, dsc: signer.certificate)
        try await w.test { client in
            let cookie = try await client.signIn()
            let png = try QRPNG.of(String(contentsOf: FixtureFiles.url("vectors/shc-spec/example-00-f-qr-code-numeric-value-0.txt"), encoding: .utf8))
            let page = try await Self.upload(client, cookie: cookie, file: ("card-photo.png", png)).text
            #expect(page.contains("Verified and added"), "\(page)")
            let dcc = try signer.issue(at: w.now)
            let added = try await Self.upload(client, cookie: cookie, text: dcc).text
            #expect(added.contains("EU Digital COVID Certificate") && added.contains("Verified and added"), "\(added)")
            let unknown = try await Self.upload(client, cookie: cookie, text: try TestDSC.make(at: w.now).issue(at: w.now)).text
            #expect(unknown.contains("dcc.key.notFound"))
            #expect(try await w.store.verifiableRecords(VerifiableRecordQuery(sourceTypes: [.euDigitalCOVIDCertificate])).count == 1)
        }
    }

    @Test func forgedOversizedAndEmptyUploadsChangeNothing() async throws {
        let w = try await Self.world(.sqlite, maxUpload: 4096)
        try await w.test { client in
            let cookie = try await client.signIn()
            let (type, body) = Self.multipart(csrf: "forged", text: "shc:/00")
            #expect(try await client.execute(uri: "/upload", method: .post, headers: [.contentType: type, .cookie: cookie], body: body).status == .forbidden)
            let big = try await Self.upload(client, cookie: cookie, file: ("big.json", Data(repeating: 0x20, count: 10_000)))
            #expect(big.status == .contentTooLarge || big.text.contains("could not be read"), "\(big.status)")
            let empty = try await Self.upload(client, cookie: cookie).text
            #expect(empty.contains("Choose a file or paste text first"))
            // Not multipart at all.
            #expect(try await client.call(.post, "/upload", form: "csrf=x", cookie: cookie).text.contains("could not be read"))
            // Without a session the upload page is not reached.
            #expect(try await client.call(.get, "/upload").status != .ok)
            #expect(try await w.store.verifiableRecords(VerifiableRecordQuery()).isEmpty)
        }
    }
}

/// A Document Signer made by the tests.
struct TestDSC {
    let key: P256.Signing.PrivateKey
    let certificate: DocumentSignerCertificate

    static func make(at now: Date) throws -> TestDSC {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CountryName("DE")
            CommonName("Upload DSC")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey), notValidBefore: now.addingTimeInterval(-86_400),
            notValidAfter: now.addingTimeInterval(86_400 * 800), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(), issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return TestDSC(key: key, certificate: try DocumentSignerCertificate(der: serializer.serializedBytes))
    }

    /// A vaccination certificate valid from an hour before `now` for a year.
    func issue(at now: Date) throws -> String {
        let payload = try JSONReader().read(Data(#"""
            {"ver":"1.3.0","nam":{"fn":"Musterfrau","fnt":"MUSTERFRAU","gn":"Erika","gnt":"ERIKA"},"dob":"1964-08-12",
             "v":[{"tg":"840539006","vp":"1119349007","mp":"EU/1/20/1528","ma":"ORG-100030215","dn":2,"sd":2,"dt":"2021-05-29",
                   "co":"DE","is":"Robert Koch-Institut","ci":"URN:UVCI:01DE/IZ12345A/5CWLU12RNOB9RXSEOP6FG8#W"}]}
            """#.utf8))
        let issuer = try DCCIssuer(key: .p256(key), certificate: certificate)
        return try issuer.issue(payload: CBORValue(json: payload), issuer: "DE", issuedAt: now.addingTimeInterval(-3600), expiration: now.addingTimeInterval(86_400 * 365))
    }
}

/// A QR code image of text, as a phone would photograph it (here: a clean PNG).
enum QRPNG {
    static func of(_ text: String) throws -> Data {
        try CardQRCode.encode(text.trimmingCharacters(in: .whitespacesAndNewlines)).pngData(moduleSize: 4)
    }
}

/// Images cost bounded memory on the server (review finding 4 of issue 28): an upload larger
/// than the upload limits is refused before it is decoded, and decodes wait their turn.
@Suite struct ImageUploadBoundsTests {
    /// A PNG of one grey level, compressed to almost nothing: what a decompression bomb looks like.
    static func flatPNG(width: Int, height: Int, colorType: UInt8 = 0) -> Data {
        let channels = [0: 1, 2: 3, 4: 2, 6: 4][Int(colorType)]!
        var raw = [UInt8]()
        raw.reserveCapacity((width * channels + 1) * height)
        let row = [UInt8(0)] + [UInt8](repeating: 200, count: width * channels)
        for _ in 0..<height { raw += row }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ body: [UInt8]) {
            out += withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init)
            let typed = Array(type.utf8) + body
            out += typed
            out += withUnsafeBytes(of: Self.crc32(typed).bigEndian, Array.init)
        }
        var header = withUnsafeBytes(of: UInt32(width).bigEndian, Array.init) + withUnsafeBytes(of: UInt32(height).bigEndian, Array.init)
        header += [8, colorType, 0, 0, 0]
        chunk("IHDR", header)
        chunk("IDAT", Compress.zlib(raw, level: .balanced))
        chunk("IEND", [])
        return Data(out)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func aBombLargerThanTheUploadLimitsIsRefusedBeforeItIsDecoded() async throws {
        let w = try await UploadTests.world(.sqlite)
        // 8000 × 8000 grey: 64 Mpx, which `qr decode` on the command line still takes.
        let bomb = Self.flatPNG(width: 8000, height: 8000)
        #expect(bomb.count < 200_000)
        #expect(throws: PNGError.self) { try PNGDecoder.decode(bomb, limits: CardInputReader.Limits.uploads.png, atMostPixels: 1) }
        try await w.test { client in
            let cookie = try await client.signIn()
            let page = try await UploadTests.upload(client, cookie: cookie, file: ("bomb.png", bomb)).text
            // Refused by its header, naming its size and the limits, before any row is inflated.
            #expect(page.contains("8000×8000") && page.contains("exceeds the limits") && page.contains("Not valid; not added"), "\(page)")
        }
    }

    @Test func decodesTakeTurnsAndABurstBeyondTheQueueIsToldToWait() async throws {
        let gate = ImageDecodeGate(slots: 1, maxWaiting: 2)
        final class Counts: Sendable {
            let inside = Mutex(0)
            let most = Mutex(0)
        }
        let counts = Counts()
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do {
                        _ = try await gate.run {
                            let now = counts.inside.withLock { $0 += 1; return $0 }
                            counts.most.withLock { $0 = max($0, now) }
                            Thread.sleep(forTimeInterval: 0.2)
                            counts.inside.withLock { $0 -= 1 }
                        }
                        return true
                    } catch { return false }
                }
            }
            var out: [Bool] = []
            for await r in group { out.append(r) }
            return out
        }
        // One runs, two wait, the other three are refused at once; never two at a time.
        #expect(results.filter { $0 }.count == 3 && results.filter { !$0 }.count == 3)
        #expect(counts.most.withLock { $0 } == 1)
        let load = await gate.load
        #expect(load.running == 0 && load.waiting == 0)
    }
}
