import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
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

    /// Every value of a list parameter: repeated (`types=a&types=b`) or comma-separated.
    static func list(_ name: String, in request: Request) -> [String] {
        request.uri.queryParameters.getAll(name).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    /// Grantable type names (`lab-result`, `blood-glucose` or HealthKit identifiers).
    static func dataTypes(_ names: [String], parameter: String) throws(APIError) -> [HealthDataType] {
        var out: [HealthDataType] = []
        for n in names {
            guard let t = HealthDataType(name: n) else { throw .invalidRequest("\(parameter): unknown type \(n)") }
            if !out.contains(t) { out.append(t) }
        }
        return out.sorted()
    }

    /// A clinical type name.
    static func clinicalType(_ name: String?, parameter: String = "type") throws(APIError) -> ClinicalType? {
        guard let name else { return nil }
        guard let t = ClinicalType(name: name) else { throw .invalidRequest("\(parameter): unknown clinical type \(name)") }
        return t
    }

    /// A non-negative `limit`, cut to the server's cap; the cap when absent.
    static func limit(_ text: String?, cap: Int) throws(APIError) -> Int {
        guard let text else { return cap }
        guard let n = Int(text), n >= 0 else { throw .invalidRequest("limit must be a non-negative integer") }
        return min(n, cap)
    }

    /// An anchor from `GET /changes` or an event id.
    static func anchor(_ text: String?, view: AppView) throws(APIError) -> QueryAnchor? {
        guard let text, !text.isEmpty else { return nil }
        do { return try view.anchor(token: text) } catch { throw .invalidRequest("anchor must be an anchor this server returned") }
    }

    /// A date parameter: an ISO 8601 instant or a FHIR date, as the period it covers.
    static func period(_ text: String?, parameter: String) throws(APIError) -> DateInterval? {
        guard let text else { return nil }
        guard let p = ISO8601.period(text) else { throw .invalidRequest("\(parameter) must be an ISO 8601 date or date-time") }
        return p
    }

    /// An app's redirect URI: absolute http(s).
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
