import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NetworkAddresses

/// One request over one fresh connection to a checked address of a ``Destination``: TCP goes
/// to the address, TLS (SNI and certificate check) to the host name. Addresses are tried in
/// order, sharing what is left of the deadline.
enum PinnedConnection {
    static func exchange(
        _ request: OutboundRequest, to destination: Destination, tls: NIOSSLContext?, group: any EventLoopGroup, deadline: NIODeadline, policy: OutboundPolicy
    ) async throws(OutboundError) -> OutboundResponse {
        var lastFailure = OutboundError.connectionFailed(host: destination.host, reason: "no address to try")
        for (index, address) in destination.addresses.enumerated() {
            let remaining = deadline - .now()
            guard remaining > .zero else { throw .timedOut(after: policy.timeout) }
            let share = TimeAmount.nanoseconds(remaining.nanoseconds / Int64(destination.addresses.count - index))
            let loop = group.next()
            let promise = loop.makePromise(of: OutboundResponse.self)
            let channel: any Channel
            do {
                channel = try await bootstrap(request, destination, tls: tls, loop: loop, deadline: deadline, policy: policy, promise: promise)
                    .connectTimeout(share)
                    .connect(to: try socketAddress(address, port: destination.port))
                    .get()
            } catch {
                promise.fail(error)
                lastFailure = ErrorMapping.outbound(error, host: destination.host)
                continue
            }
            do {
                return try await withTaskCancellationHandler {
                    try await promise.futureResult.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch {
                if Task.isCancelled { throw .cancelled }
                throw ErrorMapping.outbound(error, host: destination.host)
            }
        }
        if deadline <= .now() { throw .timedOut(after: policy.timeout) }
        throw lastFailure
    }

    private static func bootstrap(
        _ request: OutboundRequest, _ destination: Destination, tls: NIOSSLContext?, loop: any EventLoop, deadline: NIODeadline, policy: OutboundPolicy,
        promise: EventLoopPromise<OutboundResponse>
    ) -> ClientBootstrap {
        let serverName = destination.serverName
        let hostHeader = destination.hostHeader
        let host = destination.host
        return ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(
                        ExchangeHandler(
                            request: request, usesTLS: tls != nil, serverName: serverName, hostHeader: hostHeader, host: host, maxBytes: policy.maxResponseBytes, deadline: deadline,
                            timeout: policy.timeout, promise: promise))
                }
            }
    }

    /// The socket address, built from the address's bytes (no text round trip).
    static func socketAddress(_ address: IPAddress, port: Int) throws -> SocketAddress {
        switch address {
        case .v4(let a): return try SocketAddress(packedIPAddress: ByteBuffer(bytes: a.bytes), port: port)
        case .v6(let a): return try SocketAddress(packedIPAddress: ByteBuffer(bytes: a.bytes), port: port)
        }
    }
}

extension TimeAmount {
    /// A `Duration` as a NIO time amount.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(Int64(clamping: seconds) &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
