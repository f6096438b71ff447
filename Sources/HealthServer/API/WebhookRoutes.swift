import ClinicalRecords
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Background delivery (HealthKit's background delivery, over HTTP): see ``Webhooks``.
///
/// - `POST /webhooks` `{"url", "types": [...]}` → 201 `{"id", "url", "types"}`.
/// - `GET /webhooks` → `{"webhooks": [...]}`; `DELETE /webhooks/{id}` → 204.
struct WebhookRoutes {
    let webhooks: Webhooks
    let bodyLimit: Int
    let maxPerApp: Int

    struct Body: Decodable {
        let url: String
        let types: [String]?
    }

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.post("/webhooks") { request, context -> Response in
            let body = try await RequestParsing.json(Body.self, from: request, limit: bodyLimit)
            guard let url = URL(string: body.url) else { throw APIError.invalidRequest("url is not a URL") }
            var parameters = QueryParameters()
            parameters[.types] = body.types ?? []
            let types = try parameters.clinicalTypes()
            let r = try await webhooks.register(view: try context.app(), revision: context.accessRevision, url: url, types: types, maxPerApp: maxPerApp)
            return JSONResponse.make(Self.json(r), status: .created)
        }
        group.get("/webhooks") { _, context -> Response in
            JSONResponse.make(.object([("webhooks", .array(webhooks.list(appID: try context.app().app.id).map(Self.json)))]))
        }
        group.delete("/webhooks/{id}") { _, context -> Response in
            let id = try RequestParsing.pathParameter("id", in: context)
            guard webhooks.remove(id: id, appID: try context.app().app.id) else { throw APIError.notFound }
            return Response(status: .noContent)
        }
    }

    static func json(_ r: WebhookRegistration) -> EncodedJSON {
        .object([
            ("id", .string(r.id)), ("url", .string(r.url.absoluteString)),
            ("types", r.types.map { .array($0.sorted().map { .string($0.name) }) } ?? .null),
        ])
    }
}
