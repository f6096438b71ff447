import ByteEncodings
import Crypto
import Foundation
import HealthStoreCore
import SmartHealthLinks

/// How a link is made: its lifetime, flags and label.
public struct LinkOptions: Sendable {
    /// When the link stops answering (its `exp`).
    public var expires: Date
    /// Flag `P`: the passcode recipients must give.
    public var passcode: String?
    /// Wrong passcodes the link takes in its lifetime before it is disabled.
    public var attempts: Int
    /// Flag `L`: the files follow the person's records until the link expires.
    public var longTerm: Bool
    /// Flag `U`: `nil` chooses it for a single file without a passcode; `false` never.
    public var direct: Bool?
    /// Shown to the recipient (at most 80 characters).
    public var label: String?
    /// The passcode hash's cost (tests make it cheap).
    public var kdf: KDFParameters
    /// The proxy making the link for the person (their person id): the link ends when their
    /// role does. `nil` when the person makes it.
    public var madeBy: String?

    public init(
        expires: Date, passcode: String? = nil, attempts: Int = LinkPasscode.defaultAttempts, longTerm: Bool = false, direct: Bool? = nil,
        label: String? = nil, kdf: KDFParameters = .standard, madeBy: String? = nil
    ) {
        (self.expires, self.passcode, self.attempts, self.longTerm, self.direct, self.label, self.kdf) = (expires, passcode, attempts, longTerm, direct, label, kdf)
        self.madeBy = madeBy
    }
}

/// A link just made: the stored record of it, and the payload only the person gets (its key is
/// nowhere else unless the link is long-term).
public struct PublishedLink: Sendable {
    public let link: HostedLink
    public let payload: SHLinkPayload
    /// Each file's plaintext size and whether it was compressed, in order.
    public let files: [(title: String, contentType: String, plainBytes: Int, compressed: Bool)]
}

/// Makes hosted links: builds the files, encrypts them under a fresh key, stores only the
/// ciphertext (and, for a long-term link, the key sealed with the store key).
public struct LinkPublisher: Sendable {
    /// The longest lifetime a link may have.
    public static let longestLifetime: TimeInterval = 366 * 86_400
    /// Files at least this large are compressed before encryption.
    public static let compressionThreshold = 1024
    /// The path under the public URL where links live.
    public static let pathPrefix = "/shl/"

    let store: any HealthStore
    let baseURL: String

    /// - Parameter baseURL: the address recipients reach the server at (`serve --public-url`).
    public init(store: any HealthStore, baseURL: String) {
        self.store = store
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// Checks a public URL: https with a host (http only on loopback), short enough for the
    /// link's 128-character `url`.
    public static func checkBaseURL(_ base: String) throws(HostedLinkError) {
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw .publicURL("\(base) is not an http(s) URL")
        }
        // A link's key travels with its URL: over plain HTTP only to this machine.
        let host = url.host?.lowercased() ?? ""
        if scheme == "http" && !(host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")) {
            throw .publicURL("\(base) is plain http; links need https unless they point at this machine")
        }
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        let length = trimmed.count + pathPrefix.count + SHLKey.textLength
        if length > SHLinkPayload.maximumURLLength {
            throw .publicURL("\(base) makes manifest URLs of \(length) characters; a link allows \(SHLinkPayload.maximumURLLength)")
        }
    }

    /// The digest a link is looked up by: SHA-256 of its URL's random part.
    public static func lookupDigest(_ id: String) -> Data { Data(SHA256.hash(data: Data(id.utf8))) }

    /// Makes, stores and returns a link.
    public func publish(_ content: HostedLinkContent, options: LinkOptions, now: Date) async throws(HostedLinkError) -> PublishedLink {
        try Self.checkBaseURL(baseURL)
        var options = options
        // `exp` is whole seconds: the link ends when its payload says.
        options.expires = Date(timeIntervalSince1970: options.expires.timeIntervalSince1970.rounded(.down))
        if options.expires <= now { throw .expiry("\(options.expires) is not in the future") }
        if options.expires.timeIntervalSince(now) > Self.longestLifetime { throw .expiry("a link lives at most 366 days") }
        if let label = options.label, label.count > SHLinkPayload.maximumLabelLength { throw .labelTooLong(label.count) }
        var stored: LinkPasscode?
        if let passcode = options.passcode {
            guard (1...LinkPasscode.maximumAttempts).contains(options.attempts) else {
                throw .passcode("attempts must be 1 to \(LinkPasscode.maximumAttempts), not \(options.attempts)")
            }
            do { stored = try LinkPasscode.make(passcode, kdf: options.kdf) } catch { throw .passcode(error.description) }
        }
        let plain = try await LinkContentFiles(store: store).files(for: content, now: now)
        let direct: Bool
        switch options.direct {
        case .some(true):
            if plain.count != 1 { throw .directFile("needs exactly one file; this content makes \(plain.count)") }
            if options.passcode != nil { throw .directFile("cannot have a passcode") }
            direct = true
        case .some(false): direct = false
        case .none: direct = plain.count == 1 && options.passcode == nil
        }

        let key = SHLKey.random()
        let id = Base64URL.encode(SymmetricKey(size: .bits256).withUnsafeBytes { [UInt8]($0) })
        var flags: SHLFlags = []
        if options.longTerm { flags.insert(.longTerm) }
        if stored != nil { flags.insert(.passcode) }
        if direct { flags.insert(.directFile) }
        let payload: SHLinkPayload
        do {
            payload = try SHLinkPayload(
                url: baseURL + Self.pathPrefix + id, key: key, expiration: Int64(options.expires.timeIntervalSince1970.rounded(.down)), flags: flags,
                label: options.label)
        } catch {
            throw .link(error)
        }
        var jwes: [Data] = []
        var infos: [HostedLinkFileInfo] = []
        var summaries: [(String, String, Int, Bool)] = []
        for (ordinal, file) in plain.enumerated() {
            let compress = file.data.count >= Self.compressionThreshold
            let jwe: String
            do { jwe = try SHLFileEncryption.encrypt(file.data, contentType: file.contentType, key: key, compress: compress) } catch { throw .link(error) }
            jwes.append(Data(jwe.utf8))
            infos.append(HostedLinkFileInfo(ordinal: ordinal, contentType: file.contentType, updated: now, byteCount: jwe.utf8.count))
            summaries.append((file.title, file.contentType, file.data.count, compress))
        }
        let anchor: Int64
        do { anchor = try await store.currentAnchor().rawValue } catch { throw .store("\(error)") }
        let handle = SymmetricKey(size: SymmetricKeySize(bitCount: 64)).withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        let link = HostedLink(
            handle: handle, longTerm: options.longTerm, passcode: stored != nil, direct: direct, label: options.label, content: content, created: now,
            expires: options.expires, revoked: nil, ended: false, contentAnchor: anchor, passcodeLimit: stored == nil ? 0 : options.attempts,
            passcodeFailures: 0, files: infos)
        let secret = options.longTerm ? LongTermSecret(key: key, link: payload.link).data : nil
        do {
            try await store.insertHostedLink(NewHostedLink(
                link: link, lookupDigest: Self.lookupDigest(id), passcode: stored, longTermSecret: secret, jwes: jwes, madeBy: options.madeBy))
        } catch {
            throw .store("\(error)")
        }
        return PublishedLink(link: link, payload: payload, files: summaries)
    }
}

/// What a long-term link keeps, sealed: its key (to encrypt files again) and its text (to show
/// the link again).
public struct LongTermSecret: Sendable {
    public let key: SHLKey
    public let link: String

    public init(key: SHLKey, link: String) { (self.key, self.link) = (key, link) }

    /// The key's 32 bytes, then the link's text.
    public var data: Data { Data(key.bytes) + Data(link.utf8) }

    public init(data: Data) throws(HostedLinkError) {
        guard data.count > SHLKey.byteCount else { throw .store("a long-term link's secret is damaged") }
        do { key = try SHLKey(bytes: data.prefix(SHLKey.byteCount)) } catch { throw .link(error) }
        link = String(decoding: data.dropFirst(SHLKey.byteCount), as: UTF8.self)
    }
}
