import ClinicalRecords
import Foundation
import HealthImport
import HealthSharing
import HealthStoreCore
import HealthStoreSQLite
import Hummingbird
import HummingbirdTesting
import NetworkAddresses
import SmartHealthLinks
import Testing
import TestSupport

/// Hosted SMART Health Links as a recipient and an attacker meet them: the protocol's answers,
/// the lifetime passcode limit under parallel guesses, links that ended answering exactly as
/// unknown ones, single-use locations, the key never stored, long-term links following the
/// records, and a round trip into another store through our own receiver over loopback.
@Suite struct HostedLinkServerTests {
    static let records = [
        Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Asthma"), Fixtures.record(.allergy, id: "a1", text: "Peanut"),
        Fixtures.record(.immunization, id: "i1"), Fixtures.record(.medication, id: "m1", text: "Salbutamol"), Fixtures.record(.labResult, id: "l1"),
    ]

    static func publish(
        _ w: ServerWorld, _ content: HostedLinkContent, passcode: String? = nil, attempts: Int = 5, longTerm: Bool = false, manifest: Bool = false,
        lifetime: TimeInterval = 3600
    ) async throws -> PublishedLink {
        try await LinkPublisher(store: w.store, baseURL: w.server.baseURL).publish(
            content,
            options: LinkOptions(
                expires: w.now.addingTimeInterval(lifetime), passcode: passcode, attempts: attempts, longTerm: longTerm, direct: manifest ? false : nil,
                label: "For Dr Lee", kdf: .testing),
            now: w.now)
    }

    /// The path of a link's URL on the server.
    static func path(_ link: PublishedLink) -> String { String(link.payload.url.dropFirst(link.payload.url.distance(from: link.payload.url.startIndex, to: link.payload.url.range(of: "/shl/")!.lowerBound))) }

    static func manifestBody(recipient: String = "Dr Lee", passcode: String? = nil, embed: Int? = nil) -> String {
        var members = [#""recipient":"\#(recipient)""#]
        if let passcode { members.append(#""passcode":"\#(passcode)""#) }
        if let embed { members.append(#""embeddedLengthMax":\#(embed)"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test(arguments: ServerEngine.all)
    func aPasscodeLinkServesItsManifestFilesOnceAndLogsEveryAccess(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources(Self.records)
        let link = try await Self.publish(w, HostedLinkContent(summary: true, checkIn: false, types: ["immunization"]), passcode: "open sesame", lifetime: 86_400)
        #expect(link.payload.flags == [.passcode] && link.link.files.count == 2)
        let path = Self.path(link)
        try await w.test { client in
            // No passcode: 401 with the attempts left, nothing counted.
            var r = try await client.call(.post, path, json: Self.manifestBody())
            #expect(r.status == .unauthorized)
            #expect(try r.object()["remainingAttempts"] as? Int == 5)
            r = try await client.call(.post, path, json: Self.manifestBody(passcode: "wrong one"))
            #expect(r.status == .unauthorized)
            #expect(try r.object()["remainingAttempts"] as? Int == 4)
            // The right passcode: locations, since nothing may be embedded.
            r = try await client.call(.post, path, json: Self.manifestBody(passcode: "open sesame", embed: 0))
            #expect(r.status == .ok && r.headers[.contentType] == "application/json" && r.headers[.cacheControl] == "no-store")
            let manifest = try SHLManifest.decode(Data(r.body.readableBytesView))
            #expect(manifest.files.map(\.contentType) == ["application/fhir+json", "application/fhir+json"])
            #expect(manifest.files.allSatisfy { $0.embedded == nil && $0.status == .finalized && $0.lastUpdated != nil })
            let location = try #require(manifest.files[0].location)
            #expect(location.hasPrefix(w.server.baseURL + "/shl/file/"))
            let locationPath = String(location.dropFirst(w.server.baseURL.count))
            r = try await client.call(.get, locationPath)
            #expect(r.status == .ok && r.headers[.contentType] == "application/jose")
            let (cty, plain) = try SHLFileEncryption.decrypt(r.text, key: link.payload.key, expectedContentType: "application/fhir+json")
            #expect(cty == "application/fhir+json")
            let bundle = try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any])
            #expect(bundle["type"] as? String == "document")
            // A location is single use, and lives an hour.
            #expect(try await client.call(.get, locationPath).status == .notFound)
            let second = String(try #require(manifest.files[1].location).dropFirst(w.server.baseURL.count))
            w.advance(SHLManifest.locationLifetime + 1)
            #expect(try await client.call(.get, second).status == .notFound)
            // Small enough files are embedded, at exactly the length asked and not one byte less.
            let sizes = link.link.files.map(\.byteCount)
            r = try await client.call(.post, path, json: Self.manifestBody(passcode: "open sesame", embed: sizes.max()!))
            let embedded = try SHLManifest.decode(Data(r.body.readableBytesView))
            #expect(embedded.files.allSatisfy { $0.embedded != nil && $0.location == nil })
            r = try await client.call(.post, path, json: Self.manifestBody(passcode: "open sesame", embed: sizes.max()! - 1))
            #expect(try SHLManifest.decode(Data(r.body.readableBytesView)).files.contains { $0.location != nil })
        }
        let log = try await w.store.linkAccessLog(handle: link.link.handle, newestFirst: 20)
        #expect(log.reversed().map(\.event) == [.passcode, .passcode, .manifest, .file, .locationUsed, .locationExpired, .manifest, .manifest])
        #expect(log.allSatisfy { $0.recipient == "Dr Lee" || $0.recipient == nil } && log.contains { $0.event == .file && $0.ordinal == 0 })
    }

    @Test(arguments: ServerEngine.plain)
    func parallelWrongPasscodesNeverExceedTheLifetimeLimit(engine: ServerEngine) async throws {
        // One check at a time, so that guessers also meet a busy server.
        let w = try await ServerWorld(engine) { $0.limits.maxConcurrentPasscodeChecks = 1 }
        try await w.importResources(Self.records)
        let link = try await Self.publish(w, HostedLinkContent(summary: true), passcode: "the right one")
        let path = Self.path(link)
        let statuses = try await w.test(.live) { client in
            try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                // 16 guessers, three times the limit: enough to race, few enough that the one test
                // connection answers within its timeout on a loaded machine.
                for n in 0..<16 {
                    group.addTask {
                        // Told to wait (every check slot busy), a guesser comes back.
                        var r = try await client.call(.post, path, json: Self.manifestBody(recipient: "guesser \(n)", passcode: "guess \(n)"))
                        for _ in 0..<400 where r.status == .tooManyRequests {
                            try await Task.sleep(for: .milliseconds(20))
                            r = try await client.call(.post, path, json: Self.manifestBody(recipient: "guesser \(n)", passcode: "guess \(n)"))
                        }
                        return (Int(r.status.code), r.status == .unauthorized ? try r.object()["remainingAttempts"] as? Int : nil)
                    }
                }
                var all: [(Int, Int?)] = []
                for try await s in group { all.append(s) }
                return all
            }
        }
        // Five wrong guesses were evaluated, each answered with what is left; every other guesser
        // found the link disabled.
        #expect(statuses.compactMap(\.1).sorted() == [0, 1, 2, 3, 4], "\(statuses)")
        #expect(statuses.allSatisfy { [401, 404].contains($0.0) })
        #expect(w.server.passcodeChecks <= 5)
        try await w.test { client in
            let after = try await client.call(.post, path, json: Self.manifestBody(passcode: "the right one"))
            #expect(after.status == .notFound)
        }
        #expect(try await w.store.hostedLink(handle: link.link.handle)?.state(at: w.now) == .disabled)
    }

    @Test(arguments: ServerEngine.plain)
    func endedLinksAnswerExactlyAsUnknownOnes(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources(Self.records)
        let revoked = try await Self.publish(w, HostedLinkContent(checkIn: true))
        let expiring = try await Self.publish(w, HostedLinkContent(checkIn: true), lifetime: 60)
        let disabled = try await Self.publish(w, HostedLinkContent(summary: true), passcode: "right passcode", attempts: 1)
        let revokedLater = try await Self.publish(w, HostedLinkContent(summary: true), manifest: true)
        try await w.test { client in
            let unknown = "/shl/" + String(repeating: "A", count: 43)
            let baseline = try await client.call(.post, unknown, json: Self.manifestBody())
            #expect(baseline.status == .notFound)
            // A location handed out before a revoke stops working with it.
            let m = try await client.call(.post, Self.path(revokedLater), json: Self.manifestBody(embed: 0))
            let location = String(try #require(try SHLManifest.decode(Data(m.body.readableBytesView)).files.first?.location).dropFirst(w.server.baseURL.count))
            #expect(try await client.call(.get, Self.path(revoked) + "?recipient=Dr%20Lee").status == .ok)
            _ = try await w.store.revokeHostedLink(handle: revoked.link.handle, at: w.now)
            _ = try await w.store.revokeHostedLink(handle: revokedLater.link.handle, at: w.now)
            #expect(try await client.call(.post, Self.path(disabled), json: Self.manifestBody(passcode: "wrong guess")).status == .unauthorized)
            w.advance(61)
            for (method, uri, body) in [
                (HTTPRequest.Method.get, Self.path(revoked) + "?recipient=Dr%20Lee", nil), (.get, Self.path(expiring) + "?recipient=Dr%20Lee", nil),
                (.post, Self.path(disabled), Self.manifestBody(passcode: "right passcode")), (.post, Self.path(revokedLater), Self.manifestBody()),
                (.get, location, nil), (.get, unknown + "?recipient=x", nil), (.get, "/shl/short", nil), (.post, "/shl/" + String(repeating: "%", count: 43), Self.manifestBody()),
            ] as [(HTTPRequest.Method, String, String?)] {
                let r = try await client.call(method, uri, json: body)
                #expect(r.status == baseline.status && r.body == baseline.body && r.headers[.contentType] == baseline.headers[.contentType], "\(uri)")
            }
        }
        #expect(try await w.store.linkAccessLog(handle: revoked.link.handle, newestFirst: 5).first?.event == .revoked)
        #expect(try await w.store.linkAccessLog(handle: expiring.link.handle, newestFirst: 5).first?.event == .expired)
        #expect(try await w.store.linkAccessLog(handle: disabled.link.handle, newestFirst: 5).first?.event == .disabled)
    }

    @Test func theProtocolsOtherRefusals() async throws {
        let w = try await ServerWorld(.sqlite) { $0.limits.linkPollBurst = 2 }
        try await w.importResources(Self.records)
        let direct = try await Self.publish(w, HostedLinkContent(checkIn: true))
        let longTerm = try await Self.publish(w, HostedLinkContent(summary: true), longTerm: true)
        #expect(direct.payload.flags == [.directFile] && longTerm.payload.flags == [.longTerm, .directFile])
        let manifestLink = try await Self.publish(w, HostedLinkContent(summary: true), manifest: true)
        try await w.test { client in
            // U: a recipient is required; a manifest is not served.
            #expect(try await client.call(.get, Self.path(direct)).status == .badRequest)
            #expect(try await client.call(.get, Self.path(direct) + "?recipient=").status == .badRequest)
            #expect(try await client.call(.post, Self.path(direct), json: Self.manifestBody()).status == .methodNotAllowed)
            #expect(try await client.call(.get, Self.path(manifestLink) + "?recipient=x").status == .methodNotAllowed)
            // A manifest request must be one.
            #expect(try await client.call(.post, Self.path(manifestLink), json: #"{"recipient":""}"#).status == .badRequest)
            #expect(try await client.call(.post, Self.path(manifestLink), json: "[]").status == .badRequest)
            let big = Self.manifestBody(recipient: String(repeating: "x", count: 5000))
            #expect(try await client.call(.post, Self.path(manifestLink), json: big).status == .contentTooLarge)
            // L: polled too often → 429 with Retry-After.
            for _ in 0..<2 { #expect(try await client.call(.get, Self.path(longTerm) + "?recipient=x").status == .ok) }
            let r = try await client.call(.get, Self.path(longTerm) + "?recipient=x")
            #expect(r.status == .tooManyRequests && Int(r.headers[.retryAfter] ?? "") ?? 0 >= 1)
            // The link routes are open to every origin (a viewer elsewhere), without credentials.
            let pre = try await client.call(
                .options, Self.path(manifestLink), headers: [.origin: "https://viewer.example", .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "content-type"])
            #expect(pre.headers[.accessControlAllowOrigin] == "*" && pre.headers[.accessControlAllowCredentials] == nil)
        }
        let log = try await w.store.linkAccessLog(handle: longTerm.link.handle, newestFirst: 5)
        #expect(log.first?.event == .rateLimited && log.first?.status == 429)
    }

    @Test func aLongTermLinkFollowsTheRecordsWithTheSameKeyAndAFreshIV() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources(Self.records)
        let link = try await Self.publish(w, HostedLinkContent(summary: true), longTerm: true, manifest: true)
        let path = Self.path(link)
        @Sendable func embedded(_ client: any TestClientProtocol) async throws -> String {
            let r = try await client.call(.post, path, json: Self.manifestBody(embed: 1 << 20))
            let file = try #require(try SHLManifest.decode(Data(r.body.readableBytesView)).files.first)
            #expect(file.status == .canChange)
            return try #require(file.embedded)
        }
        try await w.test { client in
            let first = try await embedded(client)
            // Nothing changed: the same bytes.
            #expect(try await embedded(client) == first)
            try await w.importResources([Fixtures.record(.condition, id: "c2", text: "Migraine")], source: "second clinic")
            let second = try await embedded(client)
            let a = first.split(separator: "."), b = second.split(separator: ".")
            #expect(a[0] == b[0] && a[2] != b[2])
            let plain = try SHLFileEncryption.decrypt(second, key: link.payload.key).plaintext
            #expect(String(decoding: plain, as: UTF8.self).contains("Migraine"))
            #expect(!String(decoding: try SHLFileEncryption.decrypt(first, key: link.payload.key).plaintext, as: UTF8.self).contains("Migraine"))
        }
        #expect(try await w.store.hostedLink(handle: link.link.handle)?.files.first?.updated == w.now)
    }

    @Test func theKeyOfALinkThatCannotChangeIsNeverStored() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("plain.sqlite")
        // A plain store: nothing is sealed, the worst case.
        let store = try await SQLiteHealthStore(path: path)
        let file = try dir.write("in.json", Fixtures.bundle(Self.records))
        #expect(await RecordImporter(store: store, options: .init(source: RecordSource(identifier: "clinic"))).importPaths([file]).failed == 0)
        var links: [SHLinkPayload] = []
        for passcode in [nil, "pass code"] {
            let published = try await LinkPublisher(store: store, baseURL: "https://records.example").publish(
                HostedLinkContent(summary: true), options: LinkOptions(expires: Date().addingTimeInterval(600), passcode: passcode, kdf: .testing), now: Date())
            links.append(published.payload)
        }
        for name in [path, path + "-wal"] {
            guard let bytes = FileManager.default.contents(atPath: name) else { continue }
            for link in links {
                for secret in [Data(link.key.bytes), Data(link.key.base64url.utf8), Data(link.link.utf8), Data(link.url.utf8)] {
                    #expect(bytes.range(of: secret) == nil, "a link's secret is in \(name)")
                }
            }
            #expect(bytes.range(of: Data("pass code".utf8)) == nil)
        }
    }

    @Test(arguments: ServerEngine.plain)
    func aCheckInLinkAndAPasscodeLinkArriveInAnotherStoreThroughOurReceiver(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources(Self.records)
        let receiver = try await SQLiteHealthStore(path: w.dir.path("receiver.sqlite"))
        let fetcher = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: true), now: { w.now })
        let importer = SharedLinkImporter(importer: RecordImporter(store: receiver), allowLoopback: true)
        let checkIn = try await w.test(.live) { _ in
            // Made once the server listens: the links name its port.
            let checkIn = try await Self.publish(w, HostedLinkContent(checkIn: true))
            let guarded = try await Self.publish(w, HostedLinkContent(types: ["lab-result"]), passcode: "pass word", manifest: true)
            let files = try await fetcher.fetch(checkIn.payload, recipient: "Front desk")
            let report = await importer.importFiles(files, from: checkIn.payload)
            #expect(report.succeeded)
            for type in [ClinicalType.condition, .allergy, .immunization, .medication] { #expect(try await receiver.count(RecordQuery(type: type)) == 1, "\(type)") }
            #expect(try await receiver.count(RecordQuery(type: .labResult)) == 0)
            do {
                _ = try await fetcher.fetch(guarded.payload, recipient: "Front desk", passcode: "wrong word")
                Issue.record("a wrong passcode was accepted")
            } catch let error as SharedLinkError {
                #expect(error.code == "shl.passcode")
            }
            let labs = try await fetcher.fetch(guarded.payload, recipient: "Front desk", passcode: "pass word")
            #expect(await importer.importFiles(labs, from: guarded.payload).succeeded)
            #expect(try await receiver.count(RecordQuery(type: .labResult)) == 1)
            _ = try await w.store.revokeHostedLink(handle: checkIn.link.handle, at: w.now)
            do {
                _ = try await fetcher.fetch(checkIn.payload, recipient: "Front desk")
                Issue.record("a revoked link was served")
            } catch let error as SharedLinkError {
                #expect(error.code == "shl.notFound")
            }
            return checkIn
        }
        let log = try await w.store.linkAccessLog(handle: checkIn.link.handle, newestFirst: 5)
        #expect(log.map(\.event) == [.revoked, .direct] && log.last?.recipient == "Front desk")
    }

    /// A link past its expiry is wiped by the running server itself, not only refused.
    @Test func theServerWipesExpiredLinks() async throws {
        let w = try await ServerWorld(.sqlite) { $0.limits.linkSweepInterval = .milliseconds(50) }
        try await w.importResources(Self.records)
        let link = try await Self.publish(w, HostedLinkContent(checkIn: true), lifetime: 60)
        w.advance(61)
        try await w.test(.live) { _ in
            // The sweep runs every 50 ms; a busy machine may delay it by seconds.
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if try await w.store.hostedLink(handle: link.link.handle)?.ended == true { break }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let ended = try #require(try await w.store.hostedLink(handle: link.link.handle))
        #expect(ended.ended && ended.files.isEmpty && ended.state(at: w.now) == .expired)
    }
}
