import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Verifiable records, one time only (HealthKit's `HKVerifiableClinicalRecordQuery`): no
/// lasting grant; each request shows the person the cards that have all the requested types,
/// the person ticks the ones to share, and the app collects exactly those once.
///
/// - `POST /verifiable-record-requests` `{"recordTypes": [...], "relevantDateFrom",
///   "relevantDateTo", "redirectUri"}` → 201 `{"id", "status": "pending", "url"}`.
/// - `GET /verifiable-record-requests/{id}` → `{"id", "status"}`: `pending`, `completed`
///   (the person answered), `collected`.
/// - `POST /verifiable-record-requests/{id}/records` → `{"records": [...]}` once, after the
///   person answered (an empty list when they shared none — the same as having no cards);
///   409 before and after.
struct VerifiableRecordRoutes {
    let pending: PendingRequests
    let address: ServerAddress
    let bodyLimit: Int

    struct Body: Decodable {
        let recordTypes: [String]
        let relevantDateFrom: String?
        let relevantDateTo: String?
        let redirectUri: String?
        let sourceTypes: [String]?
    }

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.post("/verifiable-record-requests") { request, context -> Response in
            let view = try context.app()
            let body = try await RequestParsing.json(Body.self, from: request, limit: bodyLimit)
            var parameters = QueryParameters()
            parameters[.recordTypes] = body.recordTypes
            parameters.set(.relevantDateFrom, body.relevantDateFrom)
            parameters.set(.relevantDateTo, body.relevantDateTo)
            parameters[.sourceTypes] = body.sourceTypes ?? []
            let query = try VerifiableRecordQuery(parameters: parameters, requireRecordTypes: true)
            let redirect = try RequestParsing.redirectURI(body.redirectUri, app: view.app)
            let vr = VerifiableRecordRequest(appID: view.app.id, recordTypes: query.recordTypes, relevantDate: query.relevantDate, sourceTypes: query.sourceTypes)
            guard let r = try await pending.addCards(vr, redirectURI: redirect) else {
                throw APIError.conflict("too many pending requests; wait for the person to answer")
            }
            return JSONResponse.make(json(r), status: .created)
        }
        group.get("/verifiable-record-requests/{id}") { _, context -> Response in
            let id = try RequestParsing.pathParameter("id", in: context)
            guard let r = try await pending.cards(id), r.appID == (try context.app().app.id) else { throw APIError.notFound }
            return JSONResponse.make(json(r))
        }
        group.post("/verifiable-record-requests/{id}/records") { _, context -> Response in
            let view = try context.app()
            let id = try RequestParsing.pathParameter("id", in: context)
            guard let r = try await pending.cards(id), r.appID == view.app.id else { throw APIError.notFound }
            guard let token = try await pending.collectCards(id, appID: view.app.id) else {
                throw APIError.conflict(r.state == .pending ? "the person has not answered yet" : "the records were collected already")
            }
            let cards: [StoredVerifiableRecord]
            do { cards = try await view.takeSharedCards(token: token) } catch ConsentError.invalidShareToken {
                throw APIError.conflict("the records were collected already")
            }
            return JSONResponse.make(.object([("records", CardJSON.list(cards, for: .app))]))
        }
    }

    private func json(_ r: CardRequest) -> EncodedJSON {
        switch r.state {
        case .pending: return .object([("id", .string(r.id)), ("status", .string("pending")), ("url", .string(address.baseURL + "/share/" + r.id))])
        case .shared: return .object([("id", .string(r.id)), ("status", .string("completed")), ("url", .null)])
        case .collected: return .object([("id", .string(r.id)), ("status", .string("collected")), ("url", .null)])
        }
    }
}
