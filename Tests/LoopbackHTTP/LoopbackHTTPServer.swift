import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request as a test server received it.
public struct ReceivedRequest: Sendable {
    public let method: String
    /// The request target as sent (`/fhir/Observation?patient=p1&_count=200`).
    public let uri: String
    public let headers: [(String, String)]
    public let body: String

    public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// The path, percent-decoded.
    public var path: String { URLComponents(string: uri)?.path ?? uri }

    /// A query parameter, decoded.
    public func query(_ name: String) -> String? { URLComponents(string: uri)?.queryItems?.first { $0.name == name }?.value }

    /// The bearer token sent, if any.
    public var bearer: String? {
        guard let value = header("Authorization"), value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }

    /// The body's `application/x-www-form-urlencoded` fields (a token request's).
    public var form: [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = body.replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }
}

/// What a test server answers.
public struct ScriptedReply: Sendable {
    public var status: Int
    public var headers: [(String, String)] = []
    public var body: String = ""

    /// Makes a reply.
    public init(status: Int, headers: [(String, String)] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ status: Int, _ body: String, type: String = "application/fhir+json") -> ScriptedReply {
        ScriptedReply(status: status, headers: [("Content-Type", type)], body: body)
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 (a free port), in process, answering each request from a
/// closure: what the provider and sharing tests talk to over real loopback sockets, through the same pinned
/// client a sync uses against a real provider.
public final class LoopbackHTTPServer: Sendable {
    private let channel: any Channel
    /// The port it listens on.
    public let port: Int

    public init(answer: @escaping @Sendable (ReceivedRequest) -> ScriptedReply) async throws {
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(ScriptedRequestHandler(answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = channel.localAddress?.port ?? 0
    }

    public func stop() async throws { try await channel.close() }

    deinit {
        // A test that ends early (a failed `#require`) still frees its port.
        channel.close(promise: nil)
    }
}

/// Collects one request, answers it from the script and closes the connection.
private final class ScriptedRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let answer: @Sendable (ReceivedRequest) -> ScriptedReply
    private var head: HTTPRequestHead?
    private var body = ""

    public init(answer: @escaping @Sendable (ReceivedRequest) -> ScriptedReply) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = ""
        case .body(let b): body += String(buffer: b)
        case .end:
            guard let head else { return }
            let request = ReceivedRequest(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
            let reply = answer(request)
            var headers = HTTPHeaders(reply.headers)
            headers.replaceOrAdd(name: "Content-Length", value: String(reply.body.utf8.count))
            headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: reply.status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reply.body)))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
