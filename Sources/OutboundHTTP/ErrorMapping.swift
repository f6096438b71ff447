import NIOCore
import NIOSSL

/// Turns what NIO and BoringSSL throw into ``OutboundError`` cases, keeping their text as context.
enum ErrorMapping {
    static func outbound(_ error: any Error, host: String) -> OutboundError {
        switch error {
        case let e as OutboundError: return e
        case let e as NIOSSLError: return .tls(host: host, reason: "\(e)")
        case let e as NIOSSLExtraError: return .tls(host: host, reason: "\(e)")
        case let e as BoringSSLError: return .tls(host: host, reason: "\(e)")
        case is ChannelError: return .connectionFailed(host: host, reason: "\(error)")
        case is IOError: return .connectionFailed(host: host, reason: "\(error)")
        default: return .malformedResponse(host: host, reason: "\(error)")
        }
    }
}
