import Crypto
import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport

/// Hosted SMART Health Links in the store, on every engine: what is sealed comes back, the
/// lifetime passcode limit holds under parallel attempts, a location is spent once, ending a
/// link deletes what it held, and a link without L can hold no secret.
@Suite struct HostedLinkStorageTests {
    static func digest(_ s: String) -> Data { Data(SHA256.hash(data: Data(s.utf8))) }

    static func link(
        _ handle: String, now: Date, longTerm: Bool = false, passcode: Bool = false, direct: Bool = false, limit: Int = 0, expires: TimeInterval = 3600
    ) -> HostedLink {
        HostedLink(
            handle: handle, longTerm: longTerm, passcode: passcode, direct: direct, label: "For Dr Lee", content: HostedLinkContent(summary: true, cards: ["c1"]),
            created: now, expires: now.addingTimeInterval(expires), revoked: nil, ended: false, contentAnchor: 7, passcodeLimit: limit, passcodeFailures: 0,
            files: [
                HostedLinkFileInfo(ordinal: 0, contentType: "application/fhir+json", updated: now, byteCount: 5),
                HostedLinkFileInfo(ordinal: 1, contentType: "application/smart-health-card", updated: now, byteCount: 5),
            ])
    }

    @Test(arguments: StoreEngine.all)
    func aLinkRoundTripsWithItsFilesAndSealedParts(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let now = w.store.clock.now
        let passcode = try LinkPasscode.make("open sesame", kdf: .testing)
        let link = Self.link("00aa11bb22cc33dd", now: now, longTerm: true, passcode: true, limit: 5)
        try await w.store.insertHostedLink(NewHostedLink(
            link: link, lookupDigest: Self.digest("id-1"), passcode: passcode, longTermSecret: Data("key and link".utf8), jwes: [Data("jwe-0".utf8), Data("jwe-1".utf8)]))
        let read = try #require(try await w.store.hostedLink(lookupDigest: Self.digest("id-1")))
        #expect(read.handle == link.handle && read.label == "For Dr Lee" && read.content == link.content && read.longTerm && read.passcode && !read.direct)
        #expect(read.files.map(\.contentType) == ["application/fhir+json", "application/smart-health-card"] && read.files.map(\.byteCount) == [5, 5])
        #expect(read.state(at: now) == .active && read.attemptsLeft == 5 && read.contentAnchor == 7)
        #expect(try await w.store.hostedLinkFile(handle: link.handle, ordinal: 1)?.jwe == Data("jwe-1".utf8))
        #expect(try await w.store.hostedLinkFile(handle: link.handle, ordinal: 2) == nil)
        #expect(try await w.store.longTermSecret(handle: link.handle) == Data("key and link".utf8))
        #expect(try await w.store.hostedLinks(includeEnded: false).map(\.handle) == [link.handle])
        // The same handle or URL again is refused; a secret on a link without L is refused.
        await #expect(throws: HealthStoreError.self) {
            try await w.store.insertHostedLink(NewHostedLink(link: link, lookupDigest: Self.digest("id-2"), passcode: passcode, longTermSecret: nil, jwes: []))
        }
        await #expect(throws: HealthStoreError.self) {
            try await w.store.insertHostedLink(NewHostedLink(
                link: Self.link("1111111111111111", now: now), lookupDigest: Self.digest("id-3"), passcode: nil, longTermSecret: Data("key".utf8), jwes: []))
        }
        await #expect(throws: HealthStoreError.self) {
            try await w.store.insertHostedLink(NewHostedLink(
                link: Self.link("2222222222222222", now: now, passcode: true, limit: 11), lookupDigest: Self.digest("id-4"), passcode: passcode,
                longTermSecret: nil, jwes: []))
        }
        #expect(try await w.store.hostedLinks(includeEnded: true).count == 1)
    }

    @Test(arguments: StoreEngine.all)
    func wrongPasscodesInParallelNeverExceedTheLifetimeLimit(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let now = w.store.clock.now
        let handle = "3333333333333333"
        try await w.store.insertHostedLink(NewHostedLink(
            link: Self.link(handle, now: now, passcode: true, limit: 5), lookupDigest: Self.digest("p"), passcode: try LinkPasscode.make("right one", kdf: .testing),
            longTermSecret: nil, jwes: [Data("a".utf8), Data("b".utf8)]))
        let store = w.store
        // 64 guessers each reserve, then settle wrong: only five are ever let through.
        let outcomes = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    guard case .reserved(let stored) = try await store.reservePasscodeAttempt(handle: handle, now: now) else { return nil }
                    #expect(try !stored.matches("guess"))
                    return try await store.settlePasscodeAttempt(handle: handle, correct: false)
                }
            }
            var all: [Int?] = []
            for try await o in group { all.append(o) }
            return all
        }
        #expect(outcomes.compactMap { $0 }.sorted() == [0, 1, 2, 3, 4])
        let after = try #require(try await store.hostedLink(handle: handle))
        #expect(after.passcodeFailures == 5 && after.state(at: now) == .disabled && after.ended)
        #expect(try await store.reservePasscodeAttempt(handle: handle, now: now) == .inactive)
        // Disabling deleted what the link held.
        #expect(try await store.hostedLinkFile(handle: handle, ordinal: 0) == nil)
    }

    @Test(arguments: StoreEngine.all)
    func aRightAttemptHeldWhileOthersFailIsNeverDisabledAndAttemptsAllHeldAreBusy(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let now = w.store.clock.now
        let handle = "4444444444444444"
        try await w.store.insertHostedLink(NewHostedLink(
            link: Self.link(handle, now: now, passcode: true, limit: 2), lookupDigest: Self.digest("q"), passcode: try LinkPasscode.make("right one", kdf: .testing),
            longTermSecret: nil, jwes: [Data("a".utf8)]))
        guard case .reserved(let stored) = try await w.store.reservePasscodeAttempt(handle: handle, now: now) else { Issue.record("no attempt"); return }
        #expect(try stored.matches("right one"))
        guard case .reserved = try await w.store.reservePasscodeAttempt(handle: handle, now: now) else { Issue.record("no second attempt"); return }
        // Both attempts are held: a third waits.
        #expect(try await w.store.reservePasscodeAttempt(handle: handle, now: now) == .busy)
        #expect(try await w.store.settlePasscodeAttempt(handle: handle, correct: false) == 1)
        #expect(try await w.store.settlePasscodeAttempt(handle: handle, correct: true) == 1)
        let link = try #require(try await w.store.hostedLink(handle: handle))
        #expect(link.state(at: now) == .active && link.attemptsLeft == 1)
        // Past its expiry no attempt is held.
        #expect(try await w.store.reservePasscodeAttempt(handle: handle, now: now.addingTimeInterval(7200)) == .inactive)
    }

    @Test(arguments: StoreEngine.all)
    func aLocationIsSpentOnceAndEndsWithItsLink(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let now = w.store.clock.now
        let handle = "5555555555555555"
        try await w.store.insertHostedLink(NewHostedLink(
            link: Self.link(handle, now: now), lookupDigest: Self.digest("l"), passcode: nil, longTermSecret: nil, jwes: [Data("a".utf8), Data("b".utf8)]))
        try await w.store.issueLinkLocations([
            NewLinkLocation(tokenDigest: Self.digest("t1"), handle: handle, ordinal: 1, expires: now.addingTimeInterval(3600), recipient: "Dr Lee"),
            NewLinkLocation(tokenDigest: Self.digest("t2"), handle: handle, ordinal: 0, expires: now.addingTimeInterval(3600), recipient: "Dr Lee"),
        ])
        let store = w.store
        let uses = try await withThrowingTaskGroup(of: LinkLocationUse.self) { group in
            for _ in 0..<16 { group.addTask { try await store.useLinkLocation(tokenDigest: Self.digest("t1"), now: now) } }
            var all: [LinkLocationUse] = []
            for try await u in group { all.append(u) }
            return all
        }
        #expect(uses.filter { $0 == .used(handle: handle, ordinal: 1, recipient: "Dr Lee") }.count == 1)
        #expect(uses.filter { $0 == .replayed(handle: handle) }.count == 15)
        #expect(try await store.useLinkLocation(tokenDigest: Self.digest("t2"), now: now.addingTimeInterval(3601)) == .expired(handle: handle))
        #expect(try await store.useLinkLocation(tokenDigest: Self.digest("nope"), now: now) == .missing)

        try await store.appendLinkAccess(LinkAccess(handle: handle, date: now, recipient: "Dr Lee", event: .file, status: 200, ordinal: 1))
        try await store.appendLinkAccess(LinkAccess(handle: handle, date: now, recipient: nil, event: .badRequest, status: 400))
        #expect(try await store.revokeHostedLink(handle: handle, at: now) == .revoked)
        #expect(try await store.revokeHostedLink(handle: handle, at: now.addingTimeInterval(5)) == .alreadyEnded(now))
        #expect(try await store.revokeHostedLink(handle: "nope", at: now) == .missing)
        let revoked = try #require(try await store.hostedLink(handle: handle))
        #expect(revoked.state(at: now) == .revoked && revoked.files.isEmpty && revoked.ended)
        #expect(try await store.hostedLinks(includeEnded: false).isEmpty)
        #expect(try await store.useLinkLocation(tokenDigest: Self.digest("t2"), now: now) == .missing)
        // The log stays, newest first.
        let log = try await store.linkAccessLog(handle: handle, newestFirst: 10)
        #expect(log.map(\.event) == [.badRequest, .file] && log.last?.recipient == "Dr Lee" && log.first?.recipient == nil)
    }

    /// A proxy's links end with their role: only the active links that proxy made, never the
    /// person's own or another proxy's, and a second call finds nothing left.
    @Test(arguments: StoreEngine.all)
    func aProxysLinksAreRevokedAndNoOthers(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let now = w.store.clock.now
        for (handle, maker) in [("a000000000000001", "p-aaaaaaaaaaaaaaaa"), ("a000000000000002", "p-aaaaaaaaaaaaaaaa"), ("b000000000000001", "p-bbbbbbbbbbbbbbbb"), ("c000000000000001", nil)] {
            try await w.store.insertHostedLink(NewHostedLink(
                link: Self.link(handle, now: now), lookupDigest: Self.digest(handle), passcode: nil, longTermSecret: nil, jwes: [Data("a".utf8)], madeBy: maker))
        }
        #expect(try await w.store.revokeHostedLink(handle: "a000000000000002", at: now) == .revoked)
        #expect(try await w.store.revokeHostedLinks(madeBy: "p-aaaaaaaaaaaaaaaa", at: now) == 1)
        #expect(try await w.store.revokeHostedLinks(madeBy: "p-aaaaaaaaaaaaaaaa", at: now) == 0)
        #expect(try await w.store.revokeHostedLinks(madeBy: "p-cccccccccccccccc", at: now) == 0)
        #expect(Set(try await w.store.hostedLinks(includeEnded: false).map(\.handle)) == ["b000000000000001", "c000000000000001"])
        #expect(try await w.store.hostedLink(handle: "a000000000000001")?.state(at: now) == .revoked)
    }

    @Test(arguments: StoreEngine.all)
    func expiredLinksAreWipedAndLongTermFilesAreReplacedOnce(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let now = w.store.clock.now
        try await w.store.insertHostedLink(NewHostedLink(
            link: Self.link("6666666666666666", now: now, expires: 60), lookupDigest: Self.digest("e"), passcode: nil, longTermSecret: nil, jwes: [Data("a".utf8)]))
        try await w.store.insertHostedLink(NewHostedLink(
            link: Self.link("7777777777777777", now: now, longTerm: true), lookupDigest: Self.digest("f"), passcode: nil, longTermSecret: Data("k".utf8),
            jwes: [Data("a".utf8), Data("b".utf8)]))
        #expect(try await w.store.endExpiredHostedLinks(at: now) == 0)
        #expect(try await w.store.endExpiredHostedLinks(at: now.addingTimeInterval(61)) == 1)
        let expired = try #require(try await w.store.hostedLink(handle: "6666666666666666"))
        #expect(expired.ended && expired.files.isEmpty && expired.state(at: now) == .expired)
        // Of two refreshers built at the same anchor, one replaces the files.
        let later = now.addingTimeInterval(10)
        #expect(try await w.store.replaceHostedLinkFiles(handle: "7777777777777777", fromAnchor: 7, toAnchor: 9, jwes: [0: Data("a2".utf8)], date: later))
        #expect(try await !w.store.replaceHostedLinkFiles(handle: "7777777777777777", fromAnchor: 7, toAnchor: 9, jwes: [0: Data("a3".utf8)], date: later))
        #expect(try await w.store.hostedLinkFile(handle: "7777777777777777", ordinal: 0)?.jwe == Data("a2".utf8))
        let refreshed = try #require(try await w.store.hostedLink(handle: "7777777777777777"))
        #expect(refreshed.contentAnchor == 9 && refreshed.files.map(\.updated) == [later, now])
    }

    @Test func encryptingAPlainStoreSealsItsLinks() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let store = try await SQLiteHealthStore(path: path, clock: HealthClock { now })
            try await store.insertHostedLink(NewHostedLink(
                link: Self.link("8888888888888888", now: now, longTerm: true, passcode: true, limit: 3), lookupDigest: Self.digest("s"),
                passcode: try LinkPasscode.make("pass word", kdf: .testing), longTermSecret: Data("the-long-term-secret".utf8), jwes: [Data("a".utf8)],
                madeBy: "p-0123456789abcdef"))
            try await store.issueLinkLocations([
                NewLinkLocation(tokenDigest: Self.digest("t"), handle: "8888888888888888", ordinal: 0, expires: now.addingTimeInterval(60), recipient: "Dr Recipient")
            ])
            try await store.appendLinkAccess(LinkAccess(handle: "8888888888888888", date: now, recipient: "Dr Recipient", event: .manifest, status: 200))
            // Written in a batch a moment later, or now when asked (as a server does when it stops).
            try await store.flushLinkAccess()
        }
        try await SQLiteHealthStore.encrypt(path: path, credentials: .passphrase("pw"), kdf: .testing)
        for file in [path, path + "-wal"] {
            guard let bytes = FileManager.default.contents(atPath: file) else { continue }
            for secret in ["the-long-term-secret", "Dr Recipient", "For Dr Lee", "p-0123456789abcdef"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file)")
            }
        }
        let store = try await SQLiteHealthStore(path: path, clock: HealthClock { now }, credentials: .passphrase("pw"), kdf: .testing)
        #expect(try await store.longTermSecret(handle: "8888888888888888") == Data("the-long-term-secret".utf8))
        #expect(try await store.hostedLink(handle: "8888888888888888")?.label == "For Dr Lee")
        #expect(try await store.linkAccessLog(handle: "8888888888888888", newestFirst: 5).first?.recipient == "Dr Recipient")
        guard case .reserved(let stored) = try await store.reservePasscodeAttempt(handle: "8888888888888888", now: now) else { Issue.record("no attempt"); return }
        #expect(try stored.matches("pass word"))
        #expect(try await store.useLinkLocation(tokenDigest: Self.digest("t"), now: now) == .used(handle: "8888888888888888", ordinal: 0, recipient: "Dr Recipient"))
        // Its maker, resealed with the rest, still ends it.
        #expect(try await store.revokeHostedLinks(madeBy: "p-0123456789abcdef", at: now) == 1)
    }
}
