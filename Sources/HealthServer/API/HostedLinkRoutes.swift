import Foundation
import Hummingbird

/// The public routes of hosted SMART Health Links: no authentication (the link's random URL and
/// its key are the credentials), CORS open (see ``SMARTCORSMiddleware``) so a viewer on any
/// origin can fetch.
struct HostedLinkRoutes {
    let service: HostedLinkService
    /// The largest manifest request body.
    let bodyLimit: Int

    func register(on router: Router<HealthRequestContext>) {
        router.post("/shl/:id") { request, context -> Response in
            let id = context.parameters.get("id") ?? ""
            let buffer: ByteBuffer
            do { buffer = try await request.body.collect(upTo: bodyLimit) } catch { throw APIError.bodyTooLarge(limit: bodyLimit) }
            return Self.response(try await service.manifest(id: id, body: Data(buffer.readableBytesView)))
        }
        router.get("/shl/:id") { request, context -> Response in
            let recipient = request.uri.queryParameters.get("recipient")
            return Self.response(try await service.directFile(id: context.parameters.get("id") ?? "", recipient: recipient))
        }
        router.get("/shl/file/:token") { _, context -> Response in
            Self.response(try await service.location(token: context.parameters.get("token") ?? ""))
        }
    }

    static func response(_ answer: HostedLinkService.Answer) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        switch answer {
        case .manifest(let data):
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        case .file(let body):
            headers[.contentType] = "application/jose"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
        case .passcode(let remaining):
            headers[.contentType] = "application/json"
            return Response(status: .unauthorized, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "{\"remainingAttempts\":\(remaining)}")))
        case .badRequest(let message):
            return JSONResponse.make(.object([("error", .string("invalid_request")), ("error_description", .string(message))]), status: .badRequest)
        case .notFound:
            return Response(status: .notFound, headers: headers)
        case .wrongMethod(let allow):
            headers[.allow] = allow
            return Response(status: .methodNotAllowed, headers: headers)
        case .tooMany(let seconds):
            headers[.retryAfter] = String(seconds)
            return Response(status: .tooManyRequests, headers: headers)
        }
    }
}
