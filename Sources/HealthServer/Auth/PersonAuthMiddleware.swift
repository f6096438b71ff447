import Foundation
import Hummingbird

/// Guards the person's pages: a live session cookie, else a redirect to the sign-in page
/// (GET) or 403 (forms). Adds the headers every page carries: no caching, no framing (a
/// consent page inside another site's frame could be clicked through), no referrer, and a
/// content security policy that allows no script at all.
struct PersonAuthMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let cookie = request.cookies[PersonSessions.cookieName]?.value, let session = state.sessions.session(cookie: cookie) {
            var context = context
            context.session = session
            do { response = try await next(request, context) } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
        } else if request.method == .get || request.method == .head {
            let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            response = PageRenderer.redirect("/login?next=" + FormFields.encode(target))
        } else {
            response = state.pages.page(
                "message", ["title": "Signed out", "message": "Your session has ended. Sign in again and repeat what you were doing."],
                status: .forbidden)
        }
        PageHeaders.add(to: &response)
        return response
    }
}

/// The headers of every HTML page.
enum PageHeaders {
    static func add(to response: inout Response) {
        response.headers[.cacheControl] = "no-store"
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[HeaderName.frameOptions] = "DENY"
        response.headers[HeaderName.referrerPolicy] = "no-referrer"
        response.headers[HeaderName.contentTypeOptions] = "nosniff"
    }
}

/// The fields of an `application/x-www-form-urlencoded` body; a name may repeat (checkboxes).
struct FormFields: Sendable {
    private(set) var pairs: [(String, String)] = []

    /// Reads a form body of at most `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> FormFields {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw APIError.bodyTooLarge(limit: limit) }
        return parse(String(buffer: buffer))
    }

    /// Parses form text (also a query string).
    static func parse(_ text: String) -> FormFields {
        var f = FormFields()
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            f.pairs.append((decode(kv[0]), kv.count > 1 ? decode(kv[1]) : ""))
        }
        return f
    }

    /// The first value of a field.
    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// Every value of a field.
    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// Percent-encodes a value for a query string or form.
    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Checks the form's anti-forgery token against the session's.
    func checkCSRF(_ session: PersonSession?) throws(PageError) {
        guard let session, let sent = self["csrf"], SecretToken.equal(sent, session.csrfToken) else { throw .forgedForm }
    }
}

/// Why a page request failed.
enum PageError: Error, Sendable, HTTPResponseError {
    /// A form without the session's anti-forgery token.
    case forgedForm

    var status: HTTPResponse.Status { .forbidden }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let html = "<!doctype html><meta charset=utf-8><title>Refused</title><p>This form did not come from this site's own page. Nothing was changed. <a href=\"/\">Back</a>"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
