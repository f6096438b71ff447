import Foundation

/// What one JSON document holds: a single resource or a Bundle of them.
public enum FHIRContent: Sendable {
    /// A single resource.
    case resource(FHIRResource)
    /// A bundle and the resources of its entries.
    case bundle(FHIRBundle)

    /// Every resource the document carries.
    public var resources: [FHIRResource] {
        switch self {
        case .resource(let r): return [r]
        case .bundle(let b): return b.resources
        }
    }
}

/// Reads JSON documents that hold FHIR content.
public struct FHIRDocumentReader: Sendable {
    /// JSON limits for each document.
    public var jsonLimits: JSONLimits
    /// The most resources one bundle may carry.
    public var maxBundleEntries: Int
    /// The version to read content as; detected from the content when `nil`.
    public var fhirVersion: FHIRVersion?

    /// Makes a reader; with no `fhirVersion`, each document's version is detected from its content.
    public init(jsonLimits: JSONLimits = .default, maxBundleEntries: Int = 500_000, fhirVersion: FHIRVersion? = nil) {
        self.jsonLimits = jsonLimits
        self.maxBundleEntries = maxBundleEntries
        self.fhirVersion = fhirVersion
    }

    /// Reads a document: a Bundle (of any type) or a single resource with `resourceType` and `id`.
    public func read(_ data: Data, sourceURL: URL? = nil) throws(FHIRError) -> FHIRContent {
        let value: JSONValue
        do { value = try JSONReader(limits: jsonLimits).read(data) } catch { throw .json(error) }
        return try content(of: value, data: data, sourceURL: sourceURL)
    }

    /// Interprets an already parsed JSON value whose text is `data`.
    public func content(of value: JSONValue, data: Data, sourceURL: URL? = nil) throws(FHIRError) -> FHIRContent {
        guard let object = value.objectValue else { throw .notAnObject }
        let type = try FHIRResource.resourceType(of: object)
        if type == .bundle {
            let reader = FHIRBundleReader(data: data, versionHint: fhirVersion, maxEntries: maxBundleEntries, sourceURL: sourceURL)
            return .bundle(try reader.read(object))
        }
        guard let idValue = object["id"] else { throw .missingIdentifier(resourceType: type.rawValue, offset: object.sourceRange?.lowerBound) }
        let id = try FHIRResource.validIdentifier(idValue, type: type, offset: object.sourceRange?.lowerBound)
        let version = fhirVersion ?? FHIRVersion.primary(for: FHIRReleaseDetector.release(of: object, type: type) ?? .r4)
        return .resource(FHIRResource(parsed: object, resourceType: type, identifier: id, fhirVersion: version, data: data, sourceURL: sourceURL))
    }
}
