import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Reading parameters and bodies of app requests, with errors that name what is wrong.
enum RequestParsing {
    /// Decodes a JSON body of at most `limit` bytes.
    static func json<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw APIError.bodyTooLarge(limit: limit) }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError.invalidRequest("the body lacks \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context) {
            throw APIError.invalidRequest("the body's \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type")
        } catch {
            throw APIError.invalidRequest("the body is not the expected JSON object")
        }
    }

    /// The URL query's parameters, for the vocabulary's parsers (every value of a repeated name).
    static func parameters(_ request: Request) -> QueryParameters {
        QueryParameters(request.uri.queryParameters.map { (String($0.key), String($0.value)) })
    }

    /// A redirect URI the app registered, compared exactly (RFC 6749 §3.1.2, simple string
    /// comparison): the consent pages send the person nowhere else.
    static func redirectURI(_ text: String?, app: AppRegistration) throws(APIError) -> URL? {
        guard let text else { return nil }
        guard let url = app.redirectURIs.first(where: { $0.absoluteString == text }) else {
            throw .invalidRequest("redirectUri is not one of the app's registered redirect URIs")
        }
        return url
    }

    /// A path parameter, percent-decoded (a source may contain `/`, sent as `%2F`).
    static func pathParameter(_ name: String, in context: HealthRequestContext) throws(APIError) -> String {
        guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding, !value.isEmpty else { throw .notFound }
        return value
    }
}
