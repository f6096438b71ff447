import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback server that sends one request and reads the
/// response as it streams, for event streams the test clients would wait on forever.
final class RawHTTPStream {
    private let fd: Int32
    private var buffer = [UInt8]()

    /// Connects to 127.0.0.1:port and sends a GET with headers.
    init(port: Int, path: String, headers: [String: String]) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw TestFailure("connect failed")
        }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw TestFailure("write failed") }
        // Reads must never block a thread of the cooperative pool: the server under test runs there too.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Reads until the text read so far contains `marker` (giving up after 30 s); returns
    /// everything read.
    func read(until marker: String) async throws -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(30)
        while !String(decoding: buffer, as: UTF8.self).contains(marker) {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer += chunk[0..<n]
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            } else {
                throw TestFailure("stream ended before \(marker): \(String(decoding: buffer, as: UTF8.self))")
            }
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Reads until the server closes the stream; `true` when it did within `limit`.
    func closes(within limit: Duration) async throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer += chunk[0..<n]
                // A chunked response ends with its last chunk.
                if String(decoding: buffer, as: UTF8.self).hasSuffix("0\r\n\r\n") { return true }
            } else if n == 0 {
                return true
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try await Task.sleep(for: .milliseconds(20))
            } else {
                return true
            }
        }
        return false
    }
}
