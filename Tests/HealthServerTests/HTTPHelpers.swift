import Foundation
import HealthStoreCore
import Hummingbird
import HummingbirdTesting

extension TestClientProtocol {
    /// Sends a request with an optional bearer token, JSON or form body and cookie.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: String? = nil, form: String? = nil, cookie: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer? = nil
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: json)
        }
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = ByteBuffer(string: form)
        }
        if let cookie { headers[.cookie] = cookie }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }

    /// An access token for an app (client credentials in the form body).
    func token(_ creds: AppCredentials) async throws -> String {
        let r = try await call(.post, "/token", form: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=\(creds.secret)")
        guard r.status == .ok, let token = try r.object()["access_token"] as? String else { throw TestFailure("no token: \(r.status) \(r.text)") }
        return token
    }

    /// Signs the person in; returns the session cookie (`hr_session=…`).
    func signIn(_ token: String = ServerWorld.personToken) async throws -> String {
        let r = try await call(.get, "/login?token=\(token)&next=%2F")
        guard r.status == .seeOther, let setCookie = r.headers[.setCookie], let pair = setCookie.split(separator: ";").first else {
            throw TestFailure("sign-in failed: \(r.status)")
        }
        return String(pair)
    }

    /// A page's HTML and its anti-forgery token.
    func page(_ uri: String, cookie: String) async throws -> (html: String, csrf: String) {
        let r = try await call(.get, uri, cookie: cookie)
        guard r.status == .ok else { throw TestFailure("GET \(uri): \(r.status)") }
        let html = r.text
        guard let range = html.range(of: #"name="csrf" value="([^"]+)""#, options: .regularExpression) else { throw TestFailure("no csrf on \(uri)") }
        let csrf = html[range].split(separator: "\"")[3]
        return (html, String(csrf))
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body as a JSON object.
    func object() throws -> [String: Any] {
        guard let o = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else { throw TestFailure("not an object: \(text)") }
        return o
    }
}

/// A failure inside a test helper, with what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Form-encodes a value.
func formEncoded(_ s: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
}
