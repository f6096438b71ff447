import ByteEncodings
import Foundation
import HealthSharing
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import SmartHealthLinks
import Synchronization

/// The SMART Health Links protocol as this server answers it, without HTTP: manifests, direct
/// files and file locations of the links the person made.
///
/// Every request that names a known link is logged, served or refused. Every refusal of a link
/// that ended (revoked, expired, disabled) and of an unknown id is the same empty 404, so the
/// answer tells nothing; the log tells the person why.
final class HostedLinkService: Sendable {
    /// An answer, for the routes to put on the wire.
    enum Answer: Sendable, Equatable {
        /// 200 with a manifest.
        case manifest(Data)
        /// 200 with a file (`application/jose`).
        case file(ByteBuffer)
        /// 401 with `{"remainingAttempts": n}`.
        case passcode(remaining: Int)
        /// 400, naming what is wrong.
        case badRequest(String)
        /// 404, empty.
        case notFound
        /// 405: a direct-file link is fetched with GET, any other with POST.
        case wrongMethod(allow: String)
        /// 429 with `Retry-After`.
        case tooMany(retryAfter: Int)
    }

    let store: any HealthStore
    let address: ServerAddress
    /// Long-term links polled more often than the spec's minute apart (per link, this process).
    let pollLimiter: RateLimiter
    /// Passcode checks running now, and their cap (scrypt takes 32 MiB and tens of ms each).
    private let checking = Mutex(0)
    let maxConcurrentChecks: Int
    /// How many passcodes were checked (hashed): tests hold the lifetime limit with it.
    let passcodeChecks = Atomic<Int>(0)
    /// Long-term links being re-encrypted now (one at a time per link).
    private let refreshing = Mutex(Set<String>())
    /// Files of links that cannot change, as response bodies.
    private let bodies = Mutex<[String: ByteBuffer]>([:])

    /// How long a location from a manifest works.
    let locationLifetime: TimeInterval

    init(
        store: any HealthStore, address: ServerAddress, pollInterval: TimeInterval, pollBurst: Int, maxConcurrentChecks: Int,
        locationLifetime: TimeInterval = SHLManifest.locationLifetime
    ) {
        self.store = store
        self.address = address
        self.locationLifetime = min(max(1, locationLifetime), SHLManifest.locationLifetime)
        pollLimiter = RateLimiter(rate: 1 / max(pollInterval, 0.001), burst: Double(max(1, pollBurst)))
        self.maxConcurrentChecks = max(1, maxConcurrentChecks)
    }

    /// `POST /shl/{id}`: the manifest, after the passcode (P) and the polling limit (L).
    func manifest(id: String, body: Data) async throws -> Answer {
        guard let link = try await link(id) else { return .notFound }
        let now = store.clock.now
        let request: SHLManifestRequest
        do { request = try SHLManifestRequest.decode(body) } catch {
            try await log(link, nil, .badRequest, 400)
            return .badRequest(error.description)
        }
        let recipient = String(request.recipient.prefix(200))
        if let ended = try await refusal(link, recipient, now) { return ended }
        if link.direct {
            try await log(link, recipient, .badRequest, 405)
            return .wrongMethod(allow: "GET")
        }
        if link.longTerm, let wait = pollLimiter.take(link.handle) {
            try await log(link, recipient, .rateLimited, 429)
            return .tooMany(retryAfter: wait)
        }
        if link.passcode {
            guard let passcode = request.passcode else {
                try await log(link, recipient, .passcode, 401)
                return .passcode(remaining: link.attemptsLeft)
            }
            if let refused = try await check(passcode, link, recipient, now) { return refused }
        }
        let current = try await refreshed(link, now)
        var files: [SHLManifestFile] = []
        var locations: [NewLinkLocation] = []
        let status: SHLFileStatus = link.longTerm ? .canChange : .finalized
        for info in current.files {
            var entry = SHLManifestFile(contentType: info.contentType, lastUpdated: InstantText.string(info.updated), status: status)
            if let max = request.embeddedLengthMax, info.byteCount <= max, let file = try await store.hostedLinkFile(handle: link.handle, ordinal: info.ordinal) {
                entry.embedded = String(decoding: file.jwe, as: UTF8.self)
            } else {
                let token = SecretToken.make()
                locations.append(NewLinkLocation(
                    tokenDigest: SecretToken.digest(token), handle: link.handle, ordinal: info.ordinal, expires: now.addingTimeInterval(locationLifetime),
                    recipient: recipient))
                entry.location = address.baseURL + Self.locationPath + token
            }
            files.append(entry)
        }
        try await store.issueLinkLocations(locations)
        try await log(link, recipient, .manifest, 200)
        return .manifest(try JSONEncoder().encode(SHLManifest(files: files)))
    }

    /// `GET /shl/{id}?recipient=`: a direct-file (U) link's file.
    func directFile(id: String, recipient: String?) async throws -> Answer {
        guard Self.isRandomPart(id), let link = try await store.hostedLinkStatus(lookupDigest: LinkPublisher.lookupDigest(id)) else { return .notFound }
        let now = store.clock.now
        let who = recipient.map { String($0.prefix(200)) }
        if let ended = try await refusal(link, who, now) { return ended }
        guard link.direct else {
            try await log(link, who, .badRequest, 405)
            return .wrongMethod(allow: "POST")
        }
        guard let who, !who.isEmpty else {
            try await log(link, nil, .badRequest, 400)
            return .badRequest("a direct-file link is fetched with ?recipient=NAME")
        }
        if link.longTerm, let wait = pollLimiter.take(link.handle) {
            try await log(link, who, .rateLimited, 429)
            return .tooMany(retryAfter: wait)
        }
        if link.longTerm, let full = try await store.hostedLink(handle: link.handle) { _ = try await refreshed(full, now) }
        guard let body = try await served(link, ordinal: 0) else { return .notFound }
        try await log(link, who, .direct, 200, ordinal: 0)
        return .file(body)
    }

    /// `GET /shl/file/{token}`: a file by a location from a manifest, once, within the hour.
    func location(token: String) async throws -> Answer {
        guard Self.isRandomPart(token) else { return .notFound }
        let now = store.clock.now
        switch try await store.useLinkLocation(tokenDigest: SecretToken.digest(token), now: now) {
        case .missing:
            return .notFound
        case .replayed(let handle):
            try await store.appendLinkAccess(LinkAccess(handle: handle, date: now, recipient: nil, event: .locationUsed, status: 404))
            return .notFound
        case .expired(let handle):
            try await store.appendLinkAccess(LinkAccess(handle: handle, date: now, recipient: nil, event: .locationExpired, status: 404))
            return .notFound
        case .used(let handle, let ordinal, let recipient):
            // A revoke acts on locations handed out before it.
            guard let link = try await store.hostedLink(handle: handle) else { return .notFound }
            if let ended = try await refusal(link, recipient, now) { return ended }
            guard let body = try await served(link, ordinal: ordinal) else { return .notFound }
            try await log(link, recipient, .file, 200, ordinal: ordinal)
            return .file(body)
        }
    }

    /// Where file locations live under the public URL.
    static let locationPath = "/shl/file/"

    /// Whether a path segment can be a link's or a location's random part: 43 base64url characters.
    static func isRandomPart(_ text: String) -> Bool {
        text.utf8.count == SHLKey.textLength && text.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }

    // MARK: Steps

    /// A file as the response body. The files of a link that cannot change are kept as response
    /// buffers (bounded), so serving one copies nothing; whether the link may be served is decided
    /// before, on every request, from its row.
    private func served(_ link: HostedLink, ordinal: Int) async throws -> ByteBuffer? { try await served(link.status, ordinal: ordinal) }

    private func served(_ link: HostedLinkStatus, ordinal: Int) async throws -> ByteBuffer? {
        let key = link.handle + "/" + String(ordinal)
        if !link.longTerm, let known = bodies.withLock({ $0[key] }) { return known }
        guard let file = try await store.hostedLinkFile(handle: link.handle, ordinal: ordinal) else { return nil }
        let body = ByteBuffer(bytes: file.jwe)
        if !link.longTerm {
            bodies.withLock { map in
                if map.count >= Self.bodyLimit { map.removeAll(keepingCapacity: true) }
                map[key] = body
            }
        }
        return body
    }

    /// How many files are kept as response buffers.
    static let bodyLimit = 256

    private func link(_ id: String) async throws -> HostedLink? {
        guard Self.isRandomPart(id) else { return nil }
        return try await store.hostedLink(lookupDigest: LinkPublisher.lookupDigest(id))
    }

    /// The 404 of a link that is not active, logged with why.
    private func refusal(_ link: HostedLink, _ recipient: String?, _ now: Date) async throws -> Answer? {
        try await refusal(link.status, recipient, now)
    }

    private func refusal(_ link: HostedLinkStatus, _ recipient: String?, _ now: Date) async throws -> Answer? {
        let event: LinkAccess.Event
        switch link.state(at: now) {
        case .active: return nil
        case .revoked: event = .revoked
        case .expired: event = .expired
        case .disabled: event = .disabled
        }
        try await log(link, recipient, event, 404)
        return .notFound
    }

    /// Checks a passcode under the lifetime limit: an attempt is reserved first (atomically, in
    /// the store), hashed with no lock held, then settled. `nil` when it is right.
    private func check(_ passcode: String, _ link: HostedLink, _ recipient: String, _ now: Date) async throws -> Answer? {
        let admitted = checking.withLock { n in
            if n >= maxConcurrentChecks { return false }
            n += 1
            return true
        }
        guard admitted else {
            try await log(link, recipient, .busy, 429)
            return .tooMany(retryAfter: 1)
        }
        defer { checking.withLock { $0 -= 1 } }
        switch try await store.reservePasscodeAttempt(handle: link.handle, now: now) {
        case .inactive:
            let fresh = try await store.hostedLink(handle: link.handle) ?? link
            return try await refusal(fresh, recipient, now) ?? .notFound
        case .busy:
            try await log(link, recipient, .busy, 429)
            return .tooMany(retryAfter: 1)
        case .reserved(let stored):
            // Settled in a task of its own, so a client that hangs up mid-check still spends
            // (or gives back) its attempt.
            let store = self.store
            let handle = link.handle
            let remaining = try await Task { [self] () async throws -> Int? in
                passcodeChecks.add(1, ordering: .relaxed)
                let right = (try? stored.matches(passcode)) ?? false
                let left = try await store.settlePasscodeAttempt(handle: handle, correct: right)
                return right ? nil : left
            }.value
            guard let remaining else { return nil }
            try await log(link, recipient, .passcode, 401)
            return .passcode(remaining: remaining)
        }
    }

    /// A long-term link's files encrypted again (same key, fresh IV) when records it shares
    /// changed since they were built; the link as it now is.
    private func refreshed(_ link: HostedLink, _ now: Date) async throws -> HostedLink {
        guard link.longTerm else { return link }
        let current = try await store.currentAnchor().rawValue
        guard current > link.contentAnchor else { return link }
        guard refreshing.withLock({ $0.insert(link.handle).inserted }) else { return link }
        defer { _ = refreshing.withLock { $0.remove(link.handle) } }
        let change = try await store.changeSummary(since: QueryAnchor(rawValue: link.contentAnchor))
        let named = Set(link.content.types)
        let affected = (link.content.summary || link.content.checkIn) ? !change.types.isEmpty : change.types.contains { named.contains($0.name) }
        var jwes: [Int: Data] = [:]
        if affected, let sealed = try await store.longTermSecret(handle: link.handle) {
            let secret = try LongTermSecret(data: sealed)
            let plain = try await LinkContentFiles(store: store).files(for: link.content, now: now)
            for (ordinal, file) in plain.enumerated() where file.contentType != SHLContentType.smartHealthCard {
                let jwe = try SHLFileEncryption.encrypt(
                    file.data, contentType: file.contentType, key: secret.key, compress: file.data.count >= LinkPublisher.compressionThreshold)
                jwes[ordinal] = Data(jwe.utf8)
            }
        }
        _ = try await store.replaceHostedLinkFiles(handle: link.handle, fromAnchor: link.contentAnchor, toAnchor: current, jwes: jwes, date: now)
        return try await store.hostedLink(handle: link.handle) ?? link
    }

    private func log(_ link: HostedLink, _ recipient: String?, _ event: LinkAccess.Event, _ status: Int, ordinal: Int? = nil) async throws {
        try await log(link.status, recipient, event, status, ordinal: ordinal)
    }

    private func log(_ link: HostedLinkStatus, _ recipient: String?, _ event: LinkAccess.Event, _ status: Int, ordinal: Int? = nil) async throws {
        try await store.appendLinkAccess(LinkAccess(handle: link.handle, date: store.clock.now, recipient: recipient, event: event, status: status, ordinal: ordinal))
    }
}
