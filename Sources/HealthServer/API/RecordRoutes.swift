import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Record queries through the app's grants (``AppView``): what a denied or undecided type
/// gives is exactly what an empty store gives. Parameters are read, and records written, by
/// the vocabulary the CLI uses too (a bad parameter is a 400 naming it, see
/// ``RequestLogMiddleware``).
///
/// - `GET /records?type=&resourceType=&source=&from=&to=&addedFrom=&addedTo=&limit=&sort=` →
///   `{"records": [...]}` (``RecordQuery/init(parameters:limitCap:)``, ``RecordJSON``).
/// - `GET /records/{source}/{resourceType}/{id}` → the record or context resource, or 404.
/// - `GET /changes?type=&anchor=&limit=` → `{"added", "deleted", "anchor"}` (HealthKit's
///   anchored object query; anchors are the app's own tokens).
/// - `GET /medications` → `{"medications": [...]}`: the medication list as the app may read it
///   (only the medications the person picked for it, once picked; each with the person's
///   `nickname` and `archived`; ``AppView/medications()``).
struct RecordRoutes {
    /// The most records one query returns.
    let limitCap: Int

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/records") { request, context -> Response in
            let query = try RecordQuery(parameters: RequestParsing.parameters(request), limitCap: limitCap)
            let records = try await context.app().records(query)
            return JSONResponse.make(.object([("records", RecordJSON.list(records))]))
        }
        group.get("/medications") { _, context -> Response in
            let entries = try await context.app().medications()
            return JSONResponse.make(.object([("medications", .array(entries.map { .value($0.json) }))]))
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
            let view = try context.app()
            let anchors = AnchorCoding.app(view)
            let query = try AnchoredQuery(
                parameters: RequestParsing.parameters(request), anchors: anchors, limitCap: limitCap)
            return JSONResponse.make(RecordJSON.changes(try await view.changes(query), anchors: anchors))
        }
    }
}
