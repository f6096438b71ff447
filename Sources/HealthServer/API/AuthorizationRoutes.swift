import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Asking the person for types (HealthKit's authorization sheet) and the request status.
///
/// - `POST /authorization-requests` `{"types": [...], "redirectUri": "..."}` → 201
///   `{"id", "status", "url"}`. When nothing needs asking (every type decided, no new data
///   waiting) the request completes at once with no URL, as HealthKit shows no sheet.
/// - `GET /authorization-requests/{id}` → `{"id", "status"}`: `pending`, `completed`, or
///   `failed` with `"error": "requiredAuthorizationDenied"` (never which type).
/// - `GET /authorization-status?types=…` → `{"status": "shouldRequest" | "unnecessary"}`.
/// - `GET /authorization/earliest-dates?types=…` → `{"earliestDates": {"<type>": "<instant>" | null}}`:
///   an instant only for a type allowed with a history window (HealthKit's
///   `earliestAuthorizedSampleDate(for:)`); denied, undecided and all-of-history are `null` alike.
struct AuthorizationRoutes {
    let pending: PendingRequests
    let address: ServerAddress
    let bodyLimit: Int

    struct Body: Decodable {
        let types: [String]
        let redirectUri: String?
    }

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.post("/authorization-requests") { request, context -> Response in
            let view = try context.app()
            let body = try await RequestParsing.json(Body.self, from: request, limit: bodyLimit)
            var parameters = QueryParameters()
            parameters[.types] = body.types
            let types = try registeredTypes(parameters, view: view)
            let redirect = try RequestParsing.redirectURI(body.redirectUri, app: view.app)
            var initial = AuthorizationRequest.State.pending
            if try await view.requestStatus(for: Set(types)) == .unnecessary {
                initial = .completed
                do { try await view.checkRequiredAuthorization() } catch ConsentError.requiredAuthorizationDenied { initial = .requiredAuthorizationDenied }
            }
            guard let r = try await pending.addAuthorization(appID: view.app.id, types: types, redirectURI: redirect, state: initial) else {
                throw APIError.conflict("too many pending requests; wait for the person to answer")
            }
            return JSONResponse.make(json(r), status: .created)
        }
        group.get("/authorization-requests/{id}") { _, context -> Response in
            let id = try RequestParsing.pathParameter("id", in: context)
            guard let r = try await pending.authorization(id), r.appID == (try context.app().app.id) else { throw APIError.notFound }
            return JSONResponse.make(json(r))
        }
        group.get("/authorization-status") { request, context -> Response in
            let view = try context.app()
            let types = try registeredTypes(RequestParsing.parameters(request), view: view)
            let status = try await view.requestStatus(for: Set(types))
            return JSONResponse.make(.object([("status", .string(status.rawValue))]))
        }
        group.get("/authorization/earliest-dates") { request, context -> Response in
            let view = try context.app()
            let types = try registeredTypes(RequestParsing.parameters(request), view: view)
            let dates = try await view.earliestDates(for: Set(types))
            let members: [(String, EncodedJSON)] = types.map { t in (t.name, dates[t].map { .string(InstantText.string($0)) } ?? .null) }
            return JSONResponse.make(.object([("earliestDates", .object(members))]))
        }
    }

    /// The types the app named in `types`, each one it registered for.
    private func registeredTypes(_ parameters: QueryParameters, view: AppView) throws -> [HealthDataType] {
        let types = try parameters.dataTypes()
        guard !types.isEmpty else { throw ParameterError.missing(.types) }
        for t in types where !view.app.requestedTypes.contains(t) {
            throw APIError.invalidRequest("types: the app is not registered to read \(t.name)")
        }
        return types
    }

    private func json(_ r: AuthorizationRequest) -> EncodedJSON {
        var members: [(String, EncodedJSON)] = [("id", .string(r.id))]
        switch r.state {
        case .pending: members += [("status", .string("pending")), ("url", .string(address.baseURL + "/consent/" + r.id))]
        case .completed: members += [("status", .string("completed")), ("url", .null)]
        case .requiredAuthorizationDenied: members += [("status", .string("failed")), ("error", .string("requiredAuthorizationDenied")), ("url", .null)]
        }
        members.append(("types", .array(r.types.map { .string($0.name) })))
        return .object(members)
    }
}
