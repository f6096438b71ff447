import Foundation
import Hummingbird

/// The front's side of the shared SMART base (``SharedSMARTBase``): the discovery documents and
/// the JWKS of the root, and the answers to requests at the root that name no person — a
/// browser not signed in is sent to sign in and back; a code, token or refresh token without a
/// person's prefix is one nobody issued. Requests that do name a person never reach these
/// routes: ``PeopleResponder`` sends them to that person's server.
struct SharedBaseRoutes {
    let shared: SharedSMARTBase
    let bodyLimit: Int

    func register(on router: Router<HealthRequestContext>) {
        let shared = self.shared
        let bodyLimit = self.bodyLimit
        router.get("/fhir/metadata") { _, _ -> Response in FHIRResponse.make(CapabilityStatementBuilder.make(serverBase: shared.endpoints.base)) }
        for path in ["/fhir/.well-known/smart-configuration", "/.well-known/smart-configuration"] {
            router.get(RouterPath(path)) { _, _ -> Response in JSONResponse.make(SMARTConfiguration.make(serverBase: shared.endpoints.base)) }
        }
        let jwks = shared.signer.jwksJSON
        router.get("/.well-known/jwks.json") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/jwk-set+json", .cacheControl: "max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: jwks)))
        }
        // A browser that is not signed in: sign in, then the same request again (now sent to the
        // person's server by the session cookie).
        router.get("/authorize") { request, _ -> Response in AuthorizeRoutes.signInFirst(FormFields.parse(request.uri.query ?? "")) }
        router.post("/authorize") { request, _ -> Response in AuthorizeRoutes.signInFirst(try await FormFields.read(request, limit: bodyLimit)) }
        router.post("/token") { _, _ -> Response in
            throw OAuthError.invalidGrant("no code or refresh token of a person of this server: use the one /authorize gave")
        }
        // RFC 7009: a token the server does not know is answered as if revoked.
        router.post("/revoke") { _, _ -> Response in Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"]) }
        router.post("/introspect") { _, _ -> Response in JSONResponse.make(.object([("active", .bool(false))])) }
        for path in ["/fhir", "/fhir/**"] {
            router.on(RouterPath(path), method: .get) { _, _ -> Response in throw APIError.invalidToken }
            router.on(RouterPath(path), method: .post) { _, _ -> Response in throw APIError.invalidToken }
        }
    }
}
