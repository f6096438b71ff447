import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 request to 127.0.0.1 from a chosen loopback source address (Linux routes all
/// of 127/8 to the loopback interface), so tests can play clients at different addresses.
/// Blocking I/O runs on a dispatch queue, never on the cooperative pool the server uses.
enum SourceBoundHTTP {
    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    static func send(port: Int, from source: String, method: String, path: String, headers: [String: String] = [:], body: String = "") async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blocking(port: port, from: source, method: method, path: path, headers: headers, body: body) })
            }
        }
    }

    private static func blocking(port: Int, from source: String, method: String, path: String, headers: [String: String], body: String) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw TestFailure("cannot bind to \(source)") }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw TestFailure("connect failed") }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        text += "\r\n" + body
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw TestFailure("write failed") }
            sent += n
        }
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            received += chunk[0..<n]
        }
        let response = String(decoding: received, as: UTF8.self)
        guard let end = response.range(of: "\r\n\r\n") else { throw TestFailure("no HTTP response") }
        let lines = response[..<end.lowerBound].split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2, let status = Int(statusLine.split(separator: " ")[1]) else {
            throw TestFailure("bad status line")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: fields, body: String(response[end.upperBound...]))
    }
}
