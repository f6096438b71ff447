import Foundation
import NetworkAddresses
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's resolver (`getaddrinfo`: /etc/hosts, DNS, nsswitch), run on a thread of its
/// own because it blocks: a blocked lookup must not hold one of Swift concurrency's few
/// cooperative threads, nor a shared dispatch pool that the deadline's timer needs. A lookup
/// still running at the deadline is abandoned (its thread ends on its own, the answer is
/// dropped); at most ``maxLookups`` run at once, so hanging DNS cannot pile up threads.
public struct SystemResolver: HostResolver {
    /// What one blocking lookup answers: the addresses, or `nil` when the name does not resolve.
    public typealias Lookup = @Sendable (String) -> [IPAddress]?

    /// Lookup threads alive at once, abandoned ones included.
    public static let maxLookups = 64
    private static let running = Mutex(0)
    private let lookup: Lookup

    /// Uses `getaddrinfo`, so /etc/hosts and nsswitch apply as for any other program.
    public init() { self.lookup = Self.getaddrinfoLookup }

    /// A resolver running another blocking lookup the same way (tests use a slow one to prove
    /// the deadline and that callers are not blocked).
    package init(lookup: @escaping Lookup) { self.lookup = lookup }

    public func addresses(of host: String, timeout: Duration) async throws(OutboundError) -> [IPAddress] {
        let admitted = Self.running.withLock { n in
            guard n < Self.maxLookups else { return false }
            n += 1
            return true
        }
        guard admitted else { throw .resolverBusy(limit: Self.maxLookups) }
        let once = ResumeOnce<Result<[IPAddress], OutboundError>>()
        let lookup = self.lookup
        // A dispatch timer, not a task: the deadline must fire even when every cooperative thread
        // is busy.
        let timer = DispatchWorkItem { once.resume(.failure(.timedOut(after: timeout))) }
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)), execute: timer)
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                once.set(continuation)
                let thread = Thread {
                    let found = lookup(host)
                    Self.running.withLock { $0 -= 1 }
                    guard let found, !found.isEmpty else { return once.resume(.failure(.unresolvable(host: host))) }
                    once.resume(.success(found))
                }
                thread.name = "OutboundHTTP getaddrinfo"
                thread.start()
            }
        } onCancel: {
            once.resume(.failure(.cancelled))
        }
        return try result.get()
    }

    /// `getaddrinfo` for TCP, addresses read from the binary `sockaddr`s, duplicates dropped,
    /// order kept (it is the system's preference, RFC 6724).
    static func getaddrinfoLookup(_ host: String) -> [IPAddress]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var found: [IPAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            guard let sa = info.pointee.ai_addr else { continue }
            let address: IPAddress
            switch Int32(sa.pointee.sa_family) {
            case AF_INET:
                let sin = UnsafeRawPointer(sa).loadUnaligned(as: sockaddr_in.self)
                address = .v4(IPv4Address(bytes: withUnsafeBytes(of: sin.sin_addr) { Array($0) }))
            case AF_INET6:
                let sin6 = UnsafeRawPointer(sa).loadUnaligned(as: sockaddr_in6.self)
                address = .v6(IPv6Address(bytes: withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }))
            default:
                continue
            }
            if !found.contains(address) { found.append(address) }
        }
        return found
    }
}
