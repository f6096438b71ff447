import Foundation
import LoopbackHTTP
import SmartHealthLinks
import Synchronization

/// A sharing server on loopback, scripted per test: answers manifest requests with the files it
/// holds (embedded or by location), a `U` link's one file, or what a test makes it answer; and
/// keeps every request it was sent.
final class LinkServer: Sendable {
    /// What the server holds behind its one link.
    struct File: Sendable {
        let contentType: String
        let jwe: String
        let embedded: Bool
    }

    let http: LoopbackHTTPServer
    private let seen: Seen

    private final class Seen: Sendable {
        let requests = Mutex<[ReceivedRequest]>([])
    }

    /// Starts a server; `answer` may take over any request (return `nil` for the usual answer).
    init(files: [File], passcode: String? = nil, answer: @escaping @Sendable (ReceivedRequest) -> ScriptedReply? = { _ in nil }) async throws {
        let seen = Seen()
        self.seen = seen
        http = try await LoopbackHTTPServer { request in
            seen.requests.withLock { $0.append(request) }
            if let scripted = answer(request) { return scripted }
            return Self.answer(request, files: files, passcode: passcode)
        }
    }

    /// The manifest URL.
    var manifestURL: String { "http://127.0.0.1:\(http.port)/m/abc" }
    /// A `U` link's file URL.
    var directURL: String { "http://127.0.0.1:\(http.port)/u/abc" }
    /// Every request so far.
    var requests: [ReceivedRequest] { seen.requests.withLock { $0 } }

    private static func answer(_ request: ReceivedRequest, files: [File], passcode: String?) -> ScriptedReply {
        switch (request.method, request.path) {
        case ("POST", "/m/abc"):
            guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body.utf8))) as? [String: Any], body["recipient"] is String else {
                return ScriptedReply(status: 400)
            }
            if let passcode, body["passcode"] as? String != passcode { return .json(401, #"{"remainingAttempts":4}"#, type: "application/json") }
            let entries = files.enumerated().map { index, file -> [String: Any] in
                file.embedded
                    ? ["contentType": file.contentType, "embedded": file.jwe]
                    : ["contentType": file.contentType, "location": "http://127.0.0.1:\(request.header("Host")?.split(separator: ":").last ?? "0")/f/\(index)"]
            }
            let json = try! JSONSerialization.data(withJSONObject: ["files": entries])
            return .json(200, String(decoding: json, as: UTF8.self), type: "application/json")
        case ("GET", let path) where path.hasPrefix("/f/"):
            guard let index = Int(path.dropFirst(3)), files.indices.contains(index) else { return ScriptedReply(status: 404) }
            return ScriptedReply(status: 200, headers: [("Content-Type", SHLContentType.jose)], body: files[index].jwe)
        case ("GET", "/u/abc"):
            guard request.query("recipient") != nil, let file = files.first else { return ScriptedReply(status: 404) }
            return ScriptedReply(status: 200, headers: [("Content-Type", SHLContentType.jose)], body: file.jwe)
        default:
            return ScriptedReply(status: 404)
        }
    }
}
