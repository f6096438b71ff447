import FHIR
import Foundation
import HealthImport
import HealthSharing
import HealthStoreCore
import HealthStoreSQLite
import LoopbackHTTP
import NetworkAddresses
import ProviderSync
import SmartHealthCards
import SmartHealthLinks
import Synchronization
import Testing
import TestSupport

/// Following a SMART Health Link as a receiver, against a sharing server on real loopback
/// sockets: the manifest request, embedded and located files, a `U` link, the IG's own
/// encrypted IPS, and every refusal a receiver must handle without importing anything.
@Suite struct SharedLinkImportTests {
    static let issuer = "https://spec.smarthealth.cards/examples/issuer"
    static let verifyAt = Date(timeIntervalSince1970: 1_688_169_600)  // 2023-07-01, within the spec card's life

    static func vector(_ name: String) throws -> Data { try FixtureFiles.data("vectors/shl/" + name) }
    static func vectorKey() throws -> SHLKey {
        try SHLKey(base64url: FixtureFiles.text("vectors/shl/spec-example-key.txt").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func store() async throws -> (TemporaryDirectory, SQLiteHealthStore) {
        let dir = TemporaryDirectory()
        return (dir, try await SQLiteHealthStore(path: dir.path("store.sqlite")))
    }

    static func importer(_ store: any HealthStore) -> SharedLinkImporter {
        var options = RecordImporter.Options()
        options.cardVerifier = SmartHealthCardVerifier(keys: IssuerFilesKeySource(issuer: issuer, directory: FixtureFiles.url("vectors/shc-spec/issuer")))
        options.verificationTime = verifyAt
        return SharedLinkImporter(importer: RecordImporter(store: store, options: options))
    }

    static let loopback = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: true), timeout: .seconds(10))

    /// A passcode link holding a card (embedded) and the IG's IPS (by location): the card is
    /// verified and stored, the IPS lands as a source named after the link's label, and the
    /// server was told who asked and the passcode.
    @Test func importsTheCardAndTheSummaryBehindAPasscodeLink() async throws {
        let key = SHLKey.random()
        let card = try FixtureFiles.data("vectors/shc-spec/example-00-e-file.smart-health-card")
        let ips = try Self.vector("IPS_IG-bundle-01.json")
        let server = try await LinkServer(files: [
            .init(contentType: SHLContentType.smartHealthCard, jwe: try SHLFileEncryption.encrypt(card, contentType: SHLContentType.smartHealthCard, key: key), embedded: true),
            .init(contentType: SHLContentType.fhirJSON, jwe: try SHLFileEncryption.encrypt(ips, contentType: SHLContentType.fhirJSON, key: key, compress: true), embedded: false),
        ], passcode: "1234")
        let link = try SHLinkPayload(url: server.manifestURL, key: key, flags: [.passcode], label: "Summary for the clinic")
        // Read back from its text, as a receiver gets it.
        let received = try SHLinkPayload(link: link.link(viewer: "https://viewer.example/"))
        let files = try await Self.loopback.fetch(received, recipient: "Dr Example", passcode: "1234")
        #expect(files.map(\.contentType) == [SHLContentType.smartHealthCard, SHLContentType.fhirJSON])
        #expect(files[1].content == ips)

        let (dir, store) = try await Self.store()
        _ = dir
        let report = await Self.importer(store).importFiles(files, from: received)
        #expect(report.succeeded)
        guard case .cards(let cards) = report.files[0].outcome, case .records(let records) = report.files[1].outcome else {
            Issue.record("unexpected outcomes: \(report.files.map(\.outcome))")
            return
        }
        #expect(cards.count == 1 && cards[0].stored && cards[0].card.isValid)
        #expect(records.status == .imported && records.outcome.inserted > 0)
        #expect(records.source == "Summary for the clinic")
        #expect(try await store.sources().contains { $0.identifier == "Summary for the clinic" })
        #expect(try await store.verifiableRecords(VerifiableRecordQuery()).count == 1)

        let ask = try #require(server.requests.first { $0.method == "POST" })
        let body = try #require(try JSONSerialization.jsonObject(with: Data(ask.body.utf8)) as? [String: Any])
        #expect(body["recipient"] as? String == "Dr Example" && body["passcode"] as? String == "1234")
        #expect(ask.header("Content-Type") == "application/json")
    }

    /// The IG's encrypted IPS (no `cty` in its header) behind a `U` link: one GET with the
    /// recipient, and the content is recognized as FHIR by what it holds.
    @Test func followsADirectFileLinkToTheIGsEncryptedIPS() async throws {
        let jwe = String(decoding: try Self.vector("IPS_IG-bundle-01-enc.txt"), as: UTF8.self)
        let server = try await LinkServer(files: [.init(contentType: SHLContentType.fhirJSON, jwe: jwe, embedded: false)])
        let link = try SHLinkPayload(url: server.directURL, key: Self.vectorKey(), flags: [.longTerm, .directFile], label: "Demo SHL for IPS_IG-bundle-01")
        let files = try await Self.loopback.fetch(link, recipient: "Front desk")
        #expect(files.count == 1 && files[0].contentType == nil)
        #expect(files[0].content == (try Self.vector("IPS_IG-bundle-01.json")))
        #expect(server.requests.map(\.method) == ["GET"] && server.requests[0].query("recipient") == "Front desk")

        let (dir, store) = try await Self.store()
        _ = dir
        let report = await Self.importer(store).importFiles(files, from: link)
        guard case .records(let records) = report.files[0].outcome else {
            Issue.record("not imported as records: \(report.files[0].outcome)")
            return
        }
        #expect(records.outcome.inserted > 0)
    }

    @Test func aWrongPasscodeSaysHowManyTriesAreLeft() async throws {
        let key = SHLKey.random()
        let server = try await LinkServer(files: [.init(contentType: SHLContentType.fhirJSON, jwe: try SHLFileEncryption.encrypt(Data("{}".utf8), contentType: SHLContentType.fhirJSON, key: key), embedded: true)], passcode: "1234")
        let link = try SHLinkPayload(url: server.manifestURL, key: key, flags: [.passcode])
        await #expect(throws: SharedLinkError.link(.passcodeRejected(remainingAttempts: 4))) {
            try await Self.loopback.fetch(link, recipient: "Clinic", passcode: "0000")
        }
        // No passcode at all is caught before anything is sent.
        await #expect(throws: SharedLinkError.link(.passcodeRequired)) { try await Self.loopback.fetch(link, recipient: "Clinic") }
        #expect(server.requests.count == 1)
    }

    @Test func aRevokedOrThrottledLinkIsRefusedWithTheServersReason() async throws {
        let key = SHLKey.random()
        let server = try await LinkServer(files: []) { request in
            request.path == "/m/abc" ? ScriptedReply(status: 404) : ScriptedReply(status: 429, headers: [("Retry-After", "30")])
        }
        await #expect(throws: SharedLinkError.link(.notFound(url: server.manifestURL))) {
            try await Self.loopback.fetch(try SHLinkPayload(url: server.manifestURL, key: key), recipient: "Clinic")
        }
        let direct = try SHLinkPayload(url: server.directURL, key: key, flags: [.longTerm, .directFile])
        await #expect(throws: SharedLinkError.link(.rateLimited(retryAfterSeconds: 30))) { try await Self.loopback.fetch(direct, recipient: "Clinic") }
    }

    /// An expired link is not followed at all: the server never hears of it.
    @Test func anExpiredLinkIsNotFetched() async throws {
        let server = try await LinkServer(files: [])
        let link = try SHLinkPayload(url: server.manifestURL, key: SHLKey.random(), expiration: Int64(Date().timeIntervalSince1970) - 60)
        do {
            _ = try await Self.loopback.fetch(link, recipient: "Clinic")
            Issue.record("an expired link was followed")
        } catch {
            #expect(error.code == "shl.expired")
        }
        #expect(server.requests.isEmpty)
    }

    /// A file under another key, and the IG's CARIN card (a plain JWS where a JWE belongs), are
    /// refused, and nothing from the link is imported.
    @Test func filesThatAreNotTheLinksJWEAreRefused() async throws {
        let key = SHLKey.random()
        let other = try SHLFileEncryption.encrypt(Data("{}".utf8), contentType: SHLContentType.fhirJSON, key: SHLKey.random())
        let carin = String(decoding: try Self.vector("CARIN_INS_CD-bundle-01-enc.txt"), as: UTF8.self)
        for (jwe, code) in [(other, "shl.decrypt"), (carin, "shl.notEncrypted")] {
            let server = try await LinkServer(files: [.init(contentType: SHLContentType.fhirJSON, jwe: jwe, embedded: false)])
            let link = try SHLinkPayload(url: server.manifestURL, key: key)
            do {
                _ = try await Self.loopback.fetch(link, recipient: "Clinic")
                Issue.record("a file that is not the link's JWE was accepted (\(code))")
            } catch {
                #expect(error.code == code)
            }
        }
    }

    /// Without leave to reach this machine, a link pointing here is refused before any request.
    @Test func onlyPublicAddressesUnlessAllowed() async throws {
        let server = try await LinkServer(files: [])
        let link = try SHLinkPayload(url: server.manifestURL, key: SHLKey.random())
        do {
            _ = try await SharedLinkFetcher().fetch(link, recipient: "Clinic")
            Issue.record("a loopback link was followed")
        } catch {
            guard case .transport(_, let cause) = error, case .forbiddenAddress = cause else {
                Issue.record("refused for another reason: \(error)")
                return
            }
        }
        #expect(server.requests.isEmpty)
    }

    /// A manifest's locations live an hour: past it, the manifest is asked for again before the
    /// file is fetched.
    @Test func aLocationOlderThanAnHourIsNotFollowed() async throws {
        let key = SHLKey.random()
        let jwe = try SHLFileEncryption.encrypt(Data(#"{"resourceType":"Basic","id":"b1"}"#.utf8), contentType: SHLContentType.fhirJSON, key: key)
        let server = try await LinkServer(files: [.init(contentType: SHLContentType.fhirJSON, jwe: jwe, embedded: false)])
        // The link's expiry and the manifest's arrival are read at the start; every later reading
        // is two hours on (a receiver that sat on its manifest).
        let readings = Readings()
        let start = Date()
        let fetcher = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: true), now: { readings.next() < 2 ? start : start.addingTimeInterval(7200) })
        let files = try await fetcher.fetch(try SHLinkPayload(url: server.manifestURL, key: key), recipient: "Clinic")
        #expect(files.count == 1)
        #expect(server.requests.map(\.method) == ["POST", "POST", "GET"])
    }

    /// An API access grant (a SMART token response with `aud` and `patient`) is kept as a
    /// provider connection holding its token when asked, and only reported otherwise.
    @Test func anAccessGrantBecomesAProviderConnectionWhenAsked() async throws {
        let key = SHLKey.random()
        let grant = #"{"access_token":"held-token-123","token_type":"bearer","expires_in":3600,"scope":"patient/*.rs","aud":"https://fhir.example.org/r4","patient":"pat-7"}"#
        let jwe = try SHLFileEncryption.encrypt(Data(grant.utf8), contentType: SHLContentType.smartAPIAccess, key: key)
        let server = try await LinkServer(files: [.init(contentType: SHLContentType.smartAPIAccess, jwe: jwe, embedded: true)])
        let link = try SHLinkPayload(url: server.manifestURL, key: key, label: "Clinic portal")
        let files = try await Self.loopback.fetch(link, recipient: "Clinic")
        let (dir, store) = try await Self.store()
        _ = dir

        let reported = await Self.importer(store).importFiles(files, from: link)
        guard case .skipped(let reason) = reported.files[0].outcome else {
            Issue.record("not reported: \(reported.files[0].outcome)")
            return
        }
        #expect(reason.contains("https://fhir.example.org/r4") && reason.contains("--connect-access"))
        #expect(try await store.providers().isEmpty)

        let connecting = SharedLinkImporter(importer: Self.importer(store).importer, providers: ProviderDirectory(store: store))
        let connected = await connecting.importFiles(files, from: link)
        guard case .connected(let id, let base) = connected.files[0].outcome else {
            Issue.record("not connected: \(connected.files[0].outcome)")
            return
        }
        #expect(base == "https://fhir.example.org/r4")
        let provider = try #require(try await store.provider(id: id))
        #expect(provider.access == .heldToken && provider.patientID == "pat-7" && provider.name == "Clinic portal")
        #expect(provider.tokens?.accessToken == "held-token-123")

        // A grant that names no patient cannot be told from other people's records: refused.
        let anonymous = try SHLFileEncryption.encrypt(Data(#"{"access_token":"t","aud":"https://fhir.example.org/r4"}"#.utf8), contentType: SHLContentType.smartAPIAccess, key: key)
        let other = await connecting.importFiles([SharedLinkFile(index: 0, contentType: SHLContentType.smartAPIAccess, content: try SHLFileEncryption.decrypt(anonymous, key: key).plaintext)], from: link)
        guard case .failed(let why) = other.files[0].outcome else {
            Issue.record("a grant without a patient was kept: \(other.files[0].outcome)")
            return
        }
        #expect(why.contains("no patient"))
    }

    @Test func aManifestOverTheCapsIsRefused() async throws {
        let key = SHLKey.random()
        let jwe = try SHLFileEncryption.encrypt(Data("{}".utf8), contentType: SHLContentType.fhirJSON, key: key)
        let server = try await LinkServer(files: Array(repeating: .init(contentType: SHLContentType.fhirJSON, jwe: jwe, embedded: true), count: 3))
        let link = try SHLinkPayload(url: server.manifestURL, key: key)
        let fetcher = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: true), limits: .init(files: 2))
        await #expect(throws: SharedLinkError.tooManyFiles(count: 3, limit: 2)) { try await fetcher.fetch(link, recipient: "Clinic") }
        let small = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: true), limits: .init(manifestBytes: 100))
        do {
            _ = try await small.fetch(link, recipient: "Clinic")
            Issue.record("a manifest over its cap was read")
        } catch {
            #expect(error.code == "shl.tooLarge")
        }
    }
}

/// Counts the times a clock was read.
final class Readings: Sendable {
    private let count = Mutex(0)

    /// The number of readings before this one.
    func next() -> Int { count.withLock { n in defer { n += 1 }; return n } }
}
