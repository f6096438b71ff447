import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Hummingbird

/// Record queries through the app's grants (``AppView``): what a denied or undecided type
/// gives is exactly what an empty store gives.
///
/// - `GET /records?type=&resourceType=&source=&from=&to=&limit=&sort=` → `{"records": [...]}`,
///   each record with its FHIR resource inline, bytes as stored. `from`/`to` bound the clinical
///   date (a FHIR date covers its whole day, month or year); `sort` is `added`, `clinical`,
///   `-added` or `-clinical` (newest first).
/// - `GET /records/{source}/{resourceType}/{id}` → the record or context resource, or 404.
/// - `GET /changes?type=&anchor=&limit=` → `{"added", "deleted", "anchor"}` (HealthKit's
///   anchored object query; pass the anchor back next time).
struct RecordRoutes {
    let state: ServerState

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/records") { request, context -> Response in
            let query = try recordQuery(request)
            let records = try await context.app().records(query)
            return JSONResponse.make(.object([("records", .array(records.map { RecordJSON.record($0) }))]))
        }
        group.get("/records/{source}/{resourceType}/{id}") { _, context -> Response in
            let source = try RequestParsing.pathParameter("source", in: context)
            let resourceType = FHIRResourceType(try RequestParsing.pathParameter("resourceType", in: context))
            let id = try RequestParsing.pathParameter("id", in: context)
            guard resourceType.isWellFormed, FHIRResource.isValidIdentifier(id) else { throw APIError.notFound }
            guard let found = try await context.app().resource(RecordIdentity(source: source, resourceType: resourceType, identifier: id)) else {
                throw APIError.notFound
            }
            return JSONResponse.make(RecordJSON.resource(found))
        }
        group.get("/changes") { request, context -> Response in
            let p = request.uri.queryParameters
            let type = try RequestParsing.clinicalType(p.get("type"))
            let view = try context.app()
            let anchor = try RequestParsing.anchor(p.get("anchor"), view: view)
            let limit = try RequestParsing.limit(p.get("limit"), cap: state.configuration.limits.maxRecordsPerQuery)
            let result = try await view.changes(AnchoredQuery(type: type, anchor: anchor, limit: limit))
            return JSONResponse.make(.object([
                ("added", .array(zip(result.added, result.addedAnchors).map { RecordJSON.record($0, anchor: view.anchorToken($1)) })),
                ("deleted", .array(result.deleted.map { RecordJSON.deleted($0, anchor: view.anchorToken($0.anchor)) })),
                ("anchor", .string(view.anchorToken(result.anchor))),
            ]))
        }
    }

    /// The sample query a `GET /records` asks for.
    private func recordQuery(_ request: Request) throws(APIError) -> RecordQuery {
        let p = request.uri.queryParameters
        let type = try RequestParsing.clinicalType(p.get("type"))
        var predicates: [RecordPredicate] = []
        if let r = p.get("resourceType") {
            let t = FHIRResourceType(r)
            guard t.isWellFormed else { throw .invalidRequest("resourceType is not a FHIR resource type name") }
            predicates.append(.fhirResourceType(t))
        }
        if let s = p.get("source"), !s.isEmpty { predicates.append(.source(s)) }
        let from = try RequestParsing.period(p.get("from"), parameter: "from")
        let to = try RequestParsing.period(p.get("to"), parameter: "to")
        if from != nil || to != nil {
            // An instant `to` includes itself; a date `to` its whole period.
            let end = to.map { $0.duration == 0 ? $0.end.addingTimeInterval(0.001) : $0.end }
            if let from, let end, from.start >= end { throw .invalidRequest("from is after to") }
            predicates.append(.clinicalDate(from: from?.start, to: end))
        }
        let limit = try RequestParsing.limit(p.get("limit"), cap: state.configuration.limits.maxRecordsPerQuery)
        var sort = RecordSort.addedAscending
        if let s = p.get("sort") {
            let descending = s.hasPrefix("-")
            guard let key = RecordSort.Key(rawValue: descending ? String(s.dropFirst()) : s) else {
                throw .invalidRequest("sort must be added, clinical, -added or -clinical")
            }
            sort = RecordSort(key, ascending: !descending)
        }
        return RecordQuery(type: type, predicate: predicates.isEmpty ? nil : .and(predicates), limit: limit, sort: sort)
    }
}
