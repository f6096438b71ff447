import Foundation
import NetworkAddresses
import OutboundHTTP
import SmartHealthLinks

/// Follows a SMART Health Link as a receiver: asks for the manifest (or a `U` link's one file),
/// fetches each file, and decrypts it with the key the link carries.
///
/// Every request goes through the pinned outbound client, so only public addresses are reached
/// unless the policy allows loopback (tests, a server on this machine). The manifest, each file,
/// the inflated content and the number of files are capped. A file's `location` is followed only
/// within the hour the spec gives it: later, the manifest is asked for again.
public struct SharedLinkFetcher: Sendable {
    /// Caps on what a link may make the receiver fetch and hold.
    public struct Limits: Sendable, Hashable {
        /// The largest manifest accepted, in bytes.
        public var manifestBytes: Int
        /// The largest encrypted file accepted, in bytes.
        public var fileBytes: Int
        /// The most bytes a file's content may have once decrypted and inflated.
        public var contentBytes: Int
        /// The most files taken from one manifest.
        public var files: Int

        /// Makes limits: by default a 1 MiB manifest, 16 MiB files and content, 100 files.
        public init(manifestBytes: Int = 1 << 20, fileBytes: Int = 16 << 20, contentBytes: Int = 16 << 20, files: Int = 100) {
            self.manifestBytes = manifestBytes
            self.fileBytes = fileBytes
            self.contentBytes = contentBytes
            self.files = files
        }
    }

    let addresses: AddressPolicy
    let limits: Limits
    let timeout: Duration
    let resolver: any HostResolver
    let now: @Sendable () -> Date

    /// Makes a fetcher.
    ///
    /// - Parameters:
    ///   - addresses: which addresses may be reached (public only by default).
    ///   - now: the clock a link's `exp` and a location's hour are judged by.
    public init(
        addresses: AddressPolicy = AddressPolicy(), limits: Limits = Limits(), timeout: Duration = .seconds(20),
        resolver: any HostResolver = SystemResolver(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.addresses = addresses
        self.limits = limits
        self.timeout = timeout
        self.resolver = resolver
        self.now = now
    }

    /// Fetches and decrypts every file behind a link.
    ///
    /// - Parameters:
    ///   - recipient: who is asking, as the sharer's access log will show it.
    ///   - passcode: the passcode of a `P` link (sent only to a `P` link).
    /// - Throws: ``SharedLinkError``: `shl.expired` before anything is fetched, the server's
    ///   refusals (`shl.notFound`, `shl.passcode` with the attempts left, `shl.rateLimited`),
    ///   a file that is not a JWE of the link's key (`shl.notEncrypted`, `shl.jwe`,
    ///   `shl.decrypt`), caps (`shl.tooLarge`), transport failures (`shl.fetch`).
    public func fetch(_ link: SHLinkPayload, recipient: String, passcode: String? = nil) async throws(SharedLinkError) -> [SharedLinkFile] {
        do { try link.checkNotExpired(at: now()) } catch { throw .link(error) }
        guard let url = URL(string: link.url) else { throw .link(.payload(.notALink)) }
        if link.flags.contains(.directFile) {
            let fileURL = link.directFileURL(recipient: recipient)
            let jwe = try await getFile(URL(string: fileURL) ?? url)
            return [try decrypt(jwe, index: 0, contentType: nil, key: link.key)]
        }
        let request: SHLManifestRequest
        do { request = try SHLManifestRequest(for: link, recipient: recipient, passcode: passcode) } catch { throw .link(error) }
        var manifest = try await askForManifest(url, request)
        var manifestTime = now()
        guard manifest.files.count <= limits.files else { throw .tooManyFiles(count: manifest.files.count, limit: limits.files) }
        var files: [SharedLinkFile] = []
        var index = 0
        while index < manifest.files.count {
            let entry = manifest.files[index]
            let jwe: String
            if let embedded = entry.embedded {
                jwe = embedded
            } else if let location = entry.location {
                // A location lives an hour from the manifest that gave it: past that, ask again
                // (once per file) rather than follow a link the server may have let go.
                if now().timeIntervalSince(manifestTime) >= SHLManifest.locationLifetime {
                    manifest = try await askForManifest(url, request)
                    manifestTime = now()
                    guard index < manifest.files.count else { break }
                    continue
                }
                guard let fileURL = URL(string: location) else { throw .link(.manifest(.malformed(path: "files[\(index)].location"))) }
                jwe = try await getFile(fileURL)
            } else {
                throw .link(.manifest(.fileWithoutContent(index: index)))
            }
            files.append(try decrypt(jwe, index: index, contentType: entry.contentType, key: link.key))
            index += 1
        }
        return files
    }

    private func client(maxBytes: Int) -> PinnedHTTPClient {
        PinnedHTTPClient(policy: OutboundPolicy(addresses: addresses, timeout: timeout, maxResponseBytes: maxBytes), resolver: resolver)
    }

    private func askForManifest(_ url: URL, _ request: SHLManifestRequest) async throws(SharedLinkError) -> SHLManifest {
        let body: Data
        do { body = try JSONEncoder().encode(request) } catch { throw .link(.manifestRequest(.malformed(path: ""))) }
        let response: OutboundResponse
        do {
            response = try await client(maxBytes: limits.manifestBytes).post(url, body: body, headers: [("Content-Type", "application/json")])
        } catch {
            throw Self.failure(url, error)
        }
        let retryAfter = response.header("Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        do {
            return try SHLManifest.read(status: response.status, body: response.body, url: url.absoluteString, retryAfterSeconds: retryAfter)
        } catch {
            throw .link(error)
        }
    }

    private func getFile(_ url: URL) async throws(SharedLinkError) -> String {
        let response: OutboundResponse
        do { response = try await client(maxBytes: limits.fileBytes).get(url) } catch { throw Self.failure(url, error) }
        switch response.status {
        case 200: return String(decoding: response.body, as: UTF8.self)
        case 404: throw .link(.notFound(url: url.absoluteString))
        case 429: throw .link(.rateLimited(retryAfterSeconds: response.header("Retry-After").flatMap { Int($0) }))
        default: throw .link(.httpStatus(response.status, url: url.absoluteString))
        }
    }

    /// A body over its cap is the protocol's `shl.tooLarge`; anything else a transport failure.
    private static func failure(_ url: URL, _ error: OutboundError) -> SharedLinkError {
        if case .tooLarge(let limit) = error { return .link(.tooLarge(limit: limit)) }
        return .transport(url: url.absoluteString, error)
    }

    private func decrypt(_ jwe: String, index: Int, contentType: String?, key: SHLKey) throws(SharedLinkError) -> SharedLinkFile {
        do {
            let opened = try SHLFileEncryption.decrypt(jwe, key: key, expectedContentType: contentType, limit: limits.contentBytes)
            return SharedLinkFile(index: index, contentType: contentType ?? opened.contentType, content: opened.plaintext)
        } catch {
            throw .link(error)
        }
    }
}
