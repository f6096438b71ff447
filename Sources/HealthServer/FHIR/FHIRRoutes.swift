import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// The FHIR R4 REST read side at `/fhir` (docs/fhir-api.md).
///
/// Public: `GET /fhir/metadata` (the CapabilityStatement) and the SMART discovery document at
/// `/fhir/.well-known/smart-configuration` and `/.well-known/smart-configuration`. Behind
/// ``BearerAuthMiddleware``: `GET /fhir/{type}/{id}`, `GET /fhir/{type}?…` (and `POST
/// /fhir/{type}/_search` with a form body), next pages as `GET /fhir/{type}?_page=…`,
/// `GET /fhir/Patient/{id}/$everything`, `GET /fhir/Patient/{id}/$summary` (the International
/// Patient Summary of what the app may read), and a resource's history: `GET /fhir/{type}/{id}/_history`
/// and `…/_history/{vid}` (vread). Reads answer with `ETag` and `Last-Modified`, and `304` to a
/// matching `If-None-Match`. `GET /fhir/$earliest-dates[?types=…]` answers, as a Parameters
/// resource, the earliest date the app may read of each type allowed with a history window
/// (the app API's `/authorization/earliest-dates`).
struct FHIRRoutes {
    let service: FHIRService
    let address: ServerAddress
    /// The most resources one page holds.
    let countCap: Int
    let bodyLimit: Int

    /// The routes anyone may call.
    func registerPublic(on router: Router<HealthRequestContext>) {
        router.get("/fhir/metadata") { _, _ -> Response in
            FHIRResponse.make(CapabilityStatementBuilder.make(serverBase: address.baseURL))
        }
        for path in ["/fhir/.well-known/smart-configuration", "/.well-known/smart-configuration"] {
            router.get(RouterPath(path)) { _, _ -> Response in
                JSONResponse.make(SMARTConfiguration.make(serverBase: address.baseURL))
            }
        }
    }

    /// The routes that read the person's data.
    func registerProtected(on group: RouterGroup<HealthRequestContext>) {
        let service = self.service
        let cap = countCap
        group.get("/fhir") { _, _ -> Response in
            throw FHIRRequestError.notSupported("searching across every resource type is not supported; search one type, e.g. /fhir/Observation")
        }
        group.get("/fhir/$earliest-dates") { request, context -> Response in
            FHIRResponse.make(try await Self.earliestDates(Self.query(request), try context.app()))
        }
        group.get("/fhir/{type}") { request, context -> Response in
            let type = try Self.type(context)
            return try await Self.search(type: type, everything: false, pairs: Self.query(request), request: request, context: context, service, cap)
        }
        for method in [HTTPRequest.Method.get, .post] {
            group.on("/fhir/{type}/_search", method: method) { request, context -> Response in
                let type = try Self.type(context)
                var pairs = Self.query(request)
                if request.method == .post { pairs += try await FormFields.read(request, limit: bodyLimit).pairs }
                return try await Self.search(type: type, everything: false, pairs: pairs, request: request, context: context, service, cap)
            }
        }
        group.get("/fhir/{type}/{id}") { request, context -> Response in
            let type = try Self.type(context)
            let id = context.parameters.get("id") ?? ""
            return FHIRResponse.read(try await service.read(type: type, id: id, Self.caller(context)), ifNoneMatch: request.headers[.ifNoneMatch])
        }
        // Its own route: the router prefers the constant `_history` to `{operation}` and does not
        // come back to it.
        group.get("/fhir/{type}/{id}/_history") { _, context -> Response in
            let type = try Self.type(context)
            let id = context.parameters.get("id") ?? ""
            let caller = try Self.caller(context)
            let selfURL = service.base(caller) + "/" + type + "/" + id + "/_history"
            return FHIRResponse.make(try await service.history(type: type, id: id, selfURL: selfURL, caller))
        }
        group.get("/fhir/{type}/{id}/_history/{version}") { request, context -> Response in
            let type = try Self.type(context)
            let id = context.parameters.get("id") ?? ""
            let version = context.parameters.get("version") ?? ""
            let served = try await service.vread(type: type, id: id, versionId: version, Self.caller(context))
            return FHIRResponse.read(served, ifNoneMatch: request.headers[.ifNoneMatch])
        }
        group.get("/fhir/{type}/{id}/{operation}") { request, context -> Response in
            let type = try Self.type(context)
            let id = context.parameters.get("id") ?? ""
            let operation = context.parameters.get("operation")?.removingPercentEncoding ?? ""
            guard type == "Patient", operation == "$everything" || operation == "$summary" else {
                throw FHIRRequestError.notSupported("\(type)/{id}/\(operation) is not an operation this server answers")
            }
            guard id == (try await service.shared().personID) else { throw FHIRRequestError.notFound(resourceType: type, id: id) }
            if operation == "$summary" { return FHIRResponse.make(try await service.summary(Self.caller(context), now: Date())) }
            return try await Self.search(type: type, everything: true, pairs: Self.query(request), request: request, context: context, service, cap)
        }
    }

    /// Runs a search, or its next page when the query has a `_page` token.
    private static func search(
        type: String, everything: Bool, pairs: [(String, String)], request: Request, context: HealthRequestContext, _ service: FHIRService, _ cap: Int
    ) async throws -> Response {
        let caller = try caller(context)
        let path = everything ? "/Patient/\(context.parameters.get("id") ?? "")/$everything" : "/\(type)"
        if let token = pairs.first(where: { $0.0 == "_page" })?.1 {
            let state = try await service.shared().pages.open(token, appID: caller.view.app.id)
            guard state.search.resourceType == type, state.search.everything == everything else { throw FHIRRequestError.invalidPageToken }
            let selfURL = service.base(caller) + path + "?_page=" + token
            return FHIRResponse.make(try await service.search(state.search, page: state, selfURL: selfURL, caller, countCap: cap))
        }
        let search = FHIRSearchRequest(resourceType: type, everything: everything, parameters: pairs)
        let query = search.queryString
        let selfURL = service.base(caller) + path + (query.isEmpty ? "" : "?" + query)
        return FHIRResponse.make(try await service.search(search, page: nil, selfURL: selfURL, caller, countCap: cap))
    }

    /// `$earliest-dates`: one `earliestDate` parameter (a `type` code and a `date` instant) per
    /// type allowed with a history window, of those named in `types` (default: every type the
    /// app registered for). Denied, undecided and all-of-history types are absent alike.
    private static func earliestDates(_ pairs: [(String, String)], _ view: AppView) async throws -> EncodedJSON {
        var types = view.app.requestedTypes
        if let list = pairs.first(where: { $0.0 == "types" })?.1 {
            types = []
            for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard let t = HealthDataType(name: name), view.app.requestedTypes.contains(t) else {
                    throw FHIRRequestError.invalidParameter(name: "types", value: name, reason: "is not a type the app registered for")
                }
                types.insert(t)
            }
        }
        let dates = try await view.earliestDates(for: types)
        let parameters: [EncodedJSON] = dates.sorted { $0.key < $1.key }.map { type, date in
            .object([
                ("name", .string("earliestDate")),
                ("part", .array([
                    .object([("name", .string("type")), ("valueCode", .string(type.name))]),
                    .object([("name", .string("date")), ("valueInstant", .string(InstantText.string(date)))]),
                ])),
            ])
        }
        // FHIR JSON has no empty arrays: no limited type, no `parameter`.
        return .object([("resourceType", .string("Parameters"))] + (parameters.isEmpty ? [] : [("parameter", .array(parameters))]))
    }

    /// The served type named in the path; 404 for any other.
    private static func type(_ context: HealthRequestContext) throws(FHIRRequestError) -> String {
        let type = context.parameters.get("type") ?? ""
        guard FHIRResourceTypes.isServed(type) else { throw .unknownResourceType(type) }
        return type
    }

    /// The query string's parameters, decoded as a form is (`+` is a space).
    private static func query(_ request: Request) -> [(String, String)] { FormFields.parse(request.uri.query ?? "").pairs }

    private static func caller(_ context: HealthRequestContext) throws -> FHIRCaller {
        FHIRCaller(view: try context.app(), scopes: context.scopes, atSharedBase: context.atSharedBase)
    }
}
