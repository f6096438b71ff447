import Hummingbird

/// The headers of every HTML page.
enum PageHeaders {
    /// No script at all: every page but the passkey ones.
    static let scriptFree = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'"
    /// The sign-in and passkey pages: the server's own script file, and requests to itself.
    static let passkeyScript =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// Adds the headers; a page that set its own policy (one of the above) keeps it.
    static func add(to response: inout Response) {
        response.headers[.cacheControl] = "no-store"
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = scriptFree }
        response.headers[HeaderName.frameOptions] = "DENY"
        response.headers[HeaderName.referrerPolicy] = "no-referrer"
        response.headers[HeaderName.contentTypeOptions] = "nosniff"
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
