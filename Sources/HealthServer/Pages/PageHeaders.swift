import Hummingbird

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
