import ByteEncodings
import FHIR
import Foundation
import SMARTAuthorization

/// Helpers for the SMART client suites.
enum ClientTest {
    /// The `SMARTClientError` `body` throws, or nil when it returns.
    static func error<T>(_ body: () throws(SMARTClientError) -> T) -> SMARTClientError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// Whether `error` is `.unsupportedKey` with a message containing `text`.
    static func isUnsupportedKey(_ error: SMARTClientError?, _ text: String) -> Bool {
        if case .unsupportedKey(let message)? = error { return message.contains(text) }
        return false
    }

    /// Whether `error` is `.unreadableKey` with a message containing `text`.
    static func isUnreadableKey(_ error: SMARTClientError?, _ text: String) -> Bool {
        if case .unreadableKey(let message)? = error { return message.contains(text) }
        return false
    }

    /// A compact JWS's header and claims, decoded.
    static func parts(_ jwt: String) throws -> (header: JSONObject, claims: JSONObject, signature: [UInt8]) {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count == 3 else { throw Malformed() }
        let header = try JSONReader().read(Base64URL.decode(pieces[0])).objectValue
        let claims = try JSONReader().read(Base64URL.decode(pieces[1])).objectValue
        guard let header, let claims else { throw Malformed() }
        return (header, claims, try Base64URL.decode(pieces[2]))
    }

    /// The query items of a URL, decoded by Foundation.
    static func query(_ url: URL) -> [URLQueryItem] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    struct Malformed: Error {}

    /// `text` as bytes.
    static func data(_ text: String) -> Data { Data(text.utf8) }
}
