import FHIR
import Foundation

/// What classification makes of one resource: a record's derived fields, or context.
public struct ClassifiedResource: Sendable {
    /// The resource as given, so a store can keep its original bytes alongside the derived fields.
    public let resource: FHIRResource
    /// The clinical type, or `nil` for a resource that is context (Patient, Encounter…).
    public let clinicalType: ClinicalType?
    /// The consent category: the clinical type, or the context category.
    public let category: ConsentCategory
    /// The display name (also computed for context resources, for listings).
    public let displayName: String
    /// The clinical date from the resource.
    public let clinicalDate: FHIRDate?
}

/// Turns FHIR resources into classified records: type, display name and clinical date.
public struct RecordBuilder: Sendable {
    /// Decides ``ClassifiedResource/clinicalType`` and ``ClassifiedResource/category``; built from the same tables as ``names``.
    public let classifier: ClinicalClassifier
    /// Computes ``ClassifiedResource/displayName``; built from the same tables as ``classifier``.
    public let names: DisplayNameResolver

    /// Makes a builder over code tables.
    public init(tables: CodeTables = .shipped) {
        self.classifier = ClinicalClassifier(tables: tables)
        self.names = DisplayNameResolver(tables: tables)
    }

    /// Classifies every resource of a document; references are resolved inside the same bundle.
    public func classify(_ content: FHIRContent) throws(FHIRError) -> [ClassifiedResource] {
        switch content {
        case .resource(let r): return [try classify(r)]
        case .bundle(let bundle):
            var out: [ClassifiedResource] = []
            out.reserveCapacity(bundle.entries.count)
            for entry in bundle.entries {
                guard let r = entry.resource else { continue }
                out.append(try classify(r) { ref in try? bundle.entry(for: ref)?.resource?.json() })
            }
            return out
        }
    }

    /// Classifies one resource.
    public func classify(_ resource: FHIRResource, resolve: (String) -> JSONObject? = { _ in nil }) throws(FHIRError) -> ClassifiedResource {
        classify(resource, reading: try resource.json(), resolve: resolve)
    }

    /// Classifies a resource from its JSON object, read as a tree or in place on a tape; a
    /// reference it names (a Medication) is looked up through `resolve`.
    public func classify<Object: FHIRObjectReading>(_ resource: FHIRResource, reading json: Object, resolve: (String) -> Object? = { _ in nil }) -> ClassifiedResource {
        let category = classifier.category(of: resource, json: json)
        return ClassifiedResource(
            resource: resource,
            clinicalType: category.clinicalType,
            category: category,
            displayName: names.displayName(resourceType: resource.resourceType, json: json, resolve: resolve),
            clinicalDate: ClinicalDateExtractor.clinicalDate(resourceType: resource.resourceType, json: json))
    }
}
