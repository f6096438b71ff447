import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The command line's redirect target for a sign-in (RFC 8252 §7.3): a listener on 127.0.0.1
/// (a free port unless one is asked for) that takes the first `GET /callback` and answers the
/// browser with a short page. Anything else gets 404; nothing waits longer than the timeout.
public final class LoopbackRedirect: Sendable {
    private let channel: any Channel
    private let received: EventLoopPromise<String>
    /// The port listened on.
    public let port: Int

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    public var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    /// Starts listening.
    public static func listen(port: Int = 0) async throws(ProviderSyncError) -> LoopbackRedirect {
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: String.self)
        do {
            let channel = try await ServerBootstrap(group: group)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.configureHTTPServerPipeline()
                        try child.pipeline.syncOperations.addHandler(CallbackHandler(promise: promise))
                    }
                }
                .bind(host: "127.0.0.1", port: port)
                .get()
            return LoopbackRedirect(channel: channel, received: promise, port: channel.localAddress?.port ?? port)
        } catch {
            promise.fail(CancellationError())
            throw .signIn("cannot listen on 127.0.0.1:\(port) for the redirect: \(error)")
        }
    }

    private init(channel: any Channel, received: EventLoopPromise<String>, port: Int) {
        self.channel = channel
        self.received = received
        self.port = port
    }

    /// The callback's query, once the browser arrives; closes the listener either way.
    public func waitForCallback(timeout: Duration) async throws(ProviderSyncError) -> String {
        let received = self.received
        let channel = self.channel
        channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { received.fail(ProviderSyncError.signIn("nobody signed in within \(timeout)")) }
        defer { channel.close(promise: nil) }
        do { return try await received.futureResult.get() } catch let error as ProviderSyncError { throw error } catch {
            throw .signIn("the redirect listener stopped: \(error)")
        }
    }

    /// Stops listening without waiting.
    public func close() {
        received.fail(ProviderSyncError.signIn("cancelled"))
        channel.close(promise: nil)
    }
}

/// Answers `GET /callback?…` and hands its query over once; 404 for anything else.
private final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let promise: EventLoopPromise<String>
    private var head: HTTPRequestHead?

    init(promise: EventLoopPromise<String>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let head else { return }
            let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            if head.method == .GET, parts.first == "/callback" {
                promise.succeed(parts.count > 1 ? String(parts[1]) : "")
                reply(context, 200, "<!doctype html><title>HealthRecords</title><p>Signed in. You can close this window and go back to the terminal.</p>")
            } else {
                reply(context, 404, "not found")
            }
        }
    }

    private func reply(_ context: ChannelHandlerContext, _ status: Int, _ text: String) {
        var headers = HTTPHeaders([("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")])
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
