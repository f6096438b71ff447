import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Token revocation (RFC 7009, `POST /revoke`) and introspection (RFC 7662, `POST /introspect`),
/// for the client the token was issued to.
///
/// Revoking an access or refresh token ends its whole grant: the code's family, every access
/// token and refresh token made from it. An unknown token, or another client's, is answered as
/// if revoked (200) and left alone. Introspection says `{"active": false}` for anything that is
/// not a live token of the calling client.
struct TokenRevocationRoutes {
    let server: AuthorizationServer

    func register(on router: Router<HealthRequestContext>) {
        router.post("/revoke") { request, context -> Response in
            let form = try await FormFields.read(request, limit: server.maxBodyBytes)
            let app = try await ClientAuthentication(server: server).authenticate(form, request, context)
            guard let token = form["token"], form.all("token").count == 1 else { throw OAuthError.invalidRequest("token is required") }
            if let found = try await find(token, hint: form["token_type_hint"]), found.appID == app.registration.id {
                _ = try await server.store.deleteCredentials(family: found.family)
            }
            var response = Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"])
            response.headers[HeaderName.pragma] = "no-cache"
            return response
        }
        router.post("/introspect") { request, context -> Response in
            let form = try await FormFields.read(request, limit: server.maxBodyBytes)
            let app = try await ClientAuthentication(server: server).authenticate(form, request, context)
            guard let token = form["token"], form.all("token").count == 1 else { throw OAuthError.invalidRequest("token is required") }
            let now = server.clock.now
            guard let found = try await find(token, hint: form["token_type_hint"]), found.appID == app.registration.id, found.expires > now, !found.spent,
                let current = try await server.store.app(id: app.registration.id)
            else { return JSONResponse.make(.object([("active", .bool(false))])) }
            let details = (try? JSONReader().read(found.details))?.objectValue
            guard details?["revision"]?.numberValue?.intValue == current.accessRevision else { return JSONResponse.make(.object([("active", .bool(false))])) }
            var members: [(String, EncodedJSON)] = [("active", .bool(true)), ("client_id", .string(app.registration.id))]
            if let scope = details?.string("scope") { members.append(("scope", .string(scope))) }
            members.append(("token_type", .string(found.kind == .accessToken ? "Bearer" : "refresh_token")))
            members.append(("exp", .int(Int(found.expires.timeIntervalSince1970))))
            if let patient = details?.string("patient") { members.append(("patient", .string(patient))) }
            members.append(("iss", .string(server.endpoints(context).issuer)))
            return JSONResponse.make(.object(members))
        }
        router.get("/.well-known/jwks.json") { _, _ -> Response in
            let signer = try await server.idTokenSigner()
            return Response(
                status: .ok, headers: [.contentType: "application/jwk-set+json", .cacheControl: "max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: signer.jwksJSON)))
        }
    }

    /// An access or refresh token by its value, trying the hinted kind first.
    private func find(_ token: String, hint: String?) async throws -> StoredCredential? {
        let digest = SecretToken.digest(token)
        let kinds: [StoredCredential.Kind] = hint == "refresh_token" ? [.refreshToken, .accessToken] : [.accessToken, .refreshToken]
        for kind in kinds {
            if let c = try await server.store.credential(kind, digest: digest) { return c }
        }
        return nil
    }
}
