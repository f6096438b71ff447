import Hummingbird

/// Cross-origin access for the SMART surface only, so browser-based SMART apps (public clients,
/// as SMART's JavaScript client runs them) can discover the server, exchange codes for tokens and
/// read FHIR.
///
/// Those routes authenticate with a bearer token or the client's own credentials, never with
/// cookies, so any origin may call them: a page on another origin gains nothing it could not do
/// with the token it already holds, and `Access-Control-Allow-Credentials` is never sent. The
/// person's pages, the consent flow and the app API (whose session is a cookie) send no CORS
/// headers at all, so a browser keeps other origins out of them.
///
/// Added first, so it also answers preflights of routes that have no `OPTIONS` handler and puts
/// its headers on error answers (a browser app must be able to read a 401's body).
struct SMARTCORSMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext

    /// Headers a SMART client reads from answers (created resources, versions, the reason a
    /// token was refused, when to retry).
    static let exposedHeaders = "Location, Content-Location, ETag, Last-Modified, WWW-Authenticate, Retry-After"
    /// Request headers a preflight may ask for when it names none we can echo.
    static let defaultAllowedHeaders = "Authorization, Content-Type, Accept, Prefer, If-None-Match, If-Modified-Since"

    /// Whether `path` is on the SMART surface, or a hosted SMART Health Link's (whose URL and
    /// key are its credentials: a viewer on any origin must be able to fetch it).
    static func isSMARTSurface(_ path: String) -> Bool {
        path == "/fhir" || path.hasPrefix("/fhir/") || path.hasPrefix("/shl/")
            || ["/token", "/introspect", "/revoke", "/.well-known/smart-configuration", "/.well-known/jwks.json"].contains(path)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isSMARTSurface(request.uri.path) else { return try await next(request, context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = "*"
            headers[.accessControlAllowMethods] = "GET, POST, OPTIONS"
            headers[.accessControlAllowHeaders] = Self.allowedHeaders(request.headers[.accessControlRequestHeaders])
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        return response
    }

    /// The header names a preflight asked for, when they are a plain list of tokens (what a
    /// browser sends); otherwise the usual ones. Echoing is safe here: no credentials ride on
    /// these requests.
    static func allowedHeaders(_ requested: String?) -> String {
        guard let requested, !requested.isEmpty, requested.utf8.count <= 1024,
            requested.utf8.allSatisfy({ c in
                c == UInt8(ascii: ",") || c == UInt8(ascii: " ") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
                    || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z"))
            })
        else { return defaultAllowedHeaders }
        return requested
    }
}
