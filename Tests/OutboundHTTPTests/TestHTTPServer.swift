import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A tiny HTTP/1.1 server on a loopback address, in process, for the client's tests: it
/// records what arrives (requests, connections, the SNI name) and misbehaves on request.
final class TestHTTPServer: Sendable {
    /// What the server does with a request.
    enum Reply: Sendable {
        /// Answers at once.
        case respond(status: Int, headers: [(String, String)] = [], body: String = "")
        /// Never answers.
        case hang
        /// Sends the head, then one byte every 200 ms, for a minute.
        case drip
        /// Sends an endless body (64 KiB chunks) until the client hangs up.
        case endless
        /// Declares a 1 GiB body and sends none of it.
        case declareHuge
    }

    /// One request as it arrived.
    struct Request: Sendable {
        let method: String
        let uri: String
        let headers: [(String, String)]
        let body: String

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    /// What arrived, shared with the channel handlers.
    private final class Recorder: Sendable {
        let state = Mutex<(requests: [Request], connections: Int, serverNames: [String?])>(([], 0, []))
    }

    private let channel: any Channel
    private let recorder = Recorder()
    /// The port it listens on.
    let port: Int

    /// Starts a server on `host` (any port, or the given one), with TLS when a certificate is given.
    init(host: String = "127.0.0.1", port: Int = 0, tls: (certificate: String, key: String)? = nil, route: @escaping @Sendable (Request) -> Reply) async throws {
        let recorder = self.recorder
        var sslContext: NIOSSLContext?
        if let tls {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(tls.certificate.utf8)).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(tls.key.utf8), format: .pem)))
            configuration.sslContextCallback = { values, promise in
                recorder.state.withLock { $0.serverNames.append(values.serverHostname) }
                promise.succeed(.noChanges)
            }
            sslContext = try NIOSSLContext(configuration: configuration)
        }
        let context = sslContext
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                recorder.state.withLock { $0.connections += 1 }
                return child.eventLoop.makeCompletedFuture {
                    if let context { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(TestRequestHandler(route: route) { r in recorder.state.withLock { $0.requests.append(r) } })
                }
            }
            .bind(host: host, port: port)
            .get()
        self.port = channel.localAddress?.port ?? 0
    }

    /// Every request received, in order.
    var requests: [Request] { recorder.state.withLock { $0.requests } }
    /// How many connections were accepted.
    var connections: Int { recorder.state.withLock { $0.connections } }
    /// The SNI names TLS clients sent (`nil` for none).
    var serverNames: [String?] { recorder.state.withLock { $0.serverNames } }

    func stop() async throws { try await channel.close() }
}

/// Collects one request and carries out the route's reply.
private final class TestRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let route: @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Reply
    private let record: @Sendable (TestHTTPServer.Request) -> Void
    private var head: HTTPRequestHead?
    private var body = ""

    init(route: @escaping @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Reply, record: @escaping @Sendable (TestHTTPServer.Request) -> Void) {
        self.route = route
        self.record = record
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body(let b): body += String(buffer: b)
        case .end:
            guard let head else { return }
            let request = TestHTTPServer.Request(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
            record(request)
            reply(route(request), context: context)
        }
    }

    private func reply(_ reply: TestHTTPServer.Reply, context: ChannelHandlerContext) {
        switch reply {
        case .respond(let status, let extra, let text):
            var headers = HTTPHeaders(extra)
            headers.replaceOrAdd(name: "Content-Length", value: String(text.utf8.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        case .hang:
            break
        case .declareHuge:
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": String(1 << 30)])
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        case .drip:
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok))), promise: nil)
            send(count: 300, every: .milliseconds(200), chunk: 1, context: context)
        case .endless:
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok))), promise: nil)
            send(count: 4096, every: .milliseconds(1), chunk: 65536, context: context)
        }
    }

    /// Writes `count` chunks, one per interval, while the connection lasts.
    private func send(count: Int, every interval: TimeAmount, chunk: Int, context: ChannelHandlerContext) {
        guard count > 0, context.channel.isActive else { return }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(repeating: 0x20, count: chunk)))), promise: nil)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = bound.value
            handler.send(count: count - 1, every: interval, chunk: chunk, context: context)
        }
    }
}
