import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOTLS

/// Sends one request when the connection is up (for https: once the handshake is done and the
/// certificate names the host) and collects the answer, stopping at the body cap and at the
/// deadline. It always completes its promise, whatever ends the channel.
final class ExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: OutboundRequest
    private let usesTLS: Bool
    private let serverName: String?
    private let hostHeader: String
    private let host: String
    private let maxBytes: Int
    private let deadline: NIODeadline
    private let timeout: Duration
    private let promise: EventLoopPromise<OutboundResponse>
    private var head: HTTPResponseHead?
    private var body = Data()
    private var done = false
    private var timer: Scheduled<Void>?

    /// - Parameters:
    ///   - usesTLS: whether to wait for the handshake before sending.
    ///   - serverName: the host name the certificate must name (`nil`: a literal address,
    ///     which NIOSSL checks against the certificate's addresses).
    init(
        request: OutboundRequest, usesTLS: Bool, serverName: String?, hostHeader: String, host: String, maxBytes: Int, deadline: NIODeadline,
        timeout: Duration, promise: EventLoopPromise<OutboundResponse>
    ) {
        self.request = request
        self.usesTLS = usesTLS
        self.serverName = serverName
        self.hostHeader = hostHeader
        self.host = host
        self.maxBytes = maxBytes
        self.deadline = deadline
        self.timeout = timeout
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.finish(.failure(OutboundError.timedOut(after: handler.timeout)), context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        if !done {
            done = true
            promise.fail(OutboundError.malformedResponse(host: host, reason: "the connection closed before the answer ended"))
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !usesTLS { sendRequest(context: context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event, !done {
            if let serverName {
                let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
                guard let der = try? handler?.peerCertificate?.toDERBytes(), CertificateNames.leaf(der, names: serverName) else {
                    return finish(.failure(OutboundError.tls(host: host, reason: "the certificate has no DNS name matching \(serverName)")), context: context)
                }
            }
            sendRequest(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func sendRequest(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: hostHeader)
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        headers.replaceOrAdd(name: "Connection", value: "close")
        if let body = request.body { headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        let head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: request.target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = request.body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let h):
            if let declared = h.headers.first(name: "Content-Length").flatMap(Int.init), declared > maxBytes {
                return finish(.failure(OutboundError.tooLarge(limit: maxBytes)), context: context)
            }
            head = h
        case .body(let buffer):
            guard body.count + buffer.readableBytes <= maxBytes else {
                return finish(.failure(OutboundError.tooLarge(limit: maxBytes)), context: context)
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return finish(.failure(OutboundError.malformedResponse(host: host, reason: "no status line")), context: context) }
            let headers = head.headers.map { (name: $0.name, value: $0.value) }
            finish(.success(OutboundResponse(status: Int(head.status.code), headers: headers, body: body)), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(OutboundError.malformedResponse(host: host, reason: "the connection closed before the answer ended")), context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(ErrorMapping.outbound(error, host: host)), context: context)
    }

    /// Completes once and closes the connection (one request per connection).
    private func finish(_ result: Result<OutboundResponse, any Error>, context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        timer?.cancel()
        promise.completeWith(result)
        context.close(promise: nil)
    }
}
