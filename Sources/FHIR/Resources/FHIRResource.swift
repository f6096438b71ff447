import Foundation
import Synchronization

/// One FHIR resource: its type, `id`, FHIR version and original bytes, with typed read access.
///
/// The bytes are the resource exactly as it arrived (for a Bundle entry, the slice of the
/// bundle's text that holds it), so they can always be handed back unchanged.
public struct FHIRResource: Sendable, Hashable {
    /// The resource's `resourceType`.
    public let resourceType: FHIRResourceType
    /// The resource's `id` (or, for a bundle entry without one, an identifier derived from its `fullUrl` or content).
    public let identifier: String
    /// The FHIR version the resource was read as.
    public let fhirVersion: FHIRVersion
    /// The resource's original JSON bytes.
    public let data: Data
    /// The full URL the resource came from, when known.
    public let sourceURL: URL?

    private let cache: ParsedJSON

    /// Reads a single resource from JSON bytes; `resourceType` and `id` are required.
    ///
    /// - Parameter fhirVersion: the version to read it as; detected from the content when `nil`.
    public init(data: Data, fhirVersion: FHIRVersion? = nil, sourceURL: URL? = nil, limits: JSONLimits = .default) throws(FHIRError) {
        let value: JSONValue
        do { value = try JSONReader(limits: limits).read(data) } catch { throw .json(error) }
        guard let object = value.objectValue else { throw .notAnObject }
        let type = try FHIRResource.resourceType(of: object)
        guard let idValue = object["id"] else { throw .missingIdentifier(resourceType: type.rawValue, offset: object.sourceRange?.lowerBound) }
        let id = try FHIRResource.validIdentifier(idValue, type: type, offset: object.sourceRange?.lowerBound)
        let version = fhirVersion ?? FHIRVersion.primary(for: FHIRReleaseDetector.release(of: object, type: type) ?? .r4)
        self.init(parsed: object, resourceType: type, identifier: id, fhirVersion: version, data: data, sourceURL: sourceURL)
    }

    /// Makes a resource from parts already checked, keeping the parsed JSON for reads.
    public init(parsed object: JSONObject, resourceType: FHIRResourceType, identifier: String, fhirVersion: FHIRVersion, data: Data, sourceURL: URL? = nil) {
        self.resourceType = resourceType
        self.identifier = identifier
        self.fhirVersion = fhirVersion
        self.data = data
        self.sourceURL = sourceURL
        self.cache = ParsedJSON(object)
    }

    /// Makes a resource from stored parts; the JSON is parsed on first read.
    public init(storedData data: Data, resourceType: FHIRResourceType, identifier: String, fhirVersion: FHIRVersion, sourceURL: URL? = nil) {
        self.resourceType = resourceType
        self.identifier = identifier
        self.fhirVersion = fhirVersion
        self.data = data
        self.sourceURL = sourceURL
        self.cache = ParsedJSON(nil)
    }

    /// The resource's JSON object, parsed once and kept.
    public func json() throws(FHIRError) -> JSONObject {
        if let cached = cache.value { return cached }
        let value: JSONValue
        do { value = try JSONReader().read(data) } catch { throw .json(error) }
        guard let object = value.objectValue else { throw .notAnObject }
        cache.value = object
        return object
    }

    public static func == (a: FHIRResource, b: FHIRResource) -> Bool {
        a.resourceType == b.resourceType && a.identifier == b.identifier && a.fhirVersion == b.fhirVersion && a.data == b.data
            && a.sourceURL == b.sourceURL
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(resourceType)
        hasher.combine(identifier)
        hasher.combine(data)
    }

    /// The `resourceType` of an object, checked to be a well-formed type name.
    public static func resourceType(of object: JSONObject) throws(FHIRError) -> FHIRResourceType {
        guard let raw = object["resourceType"] else { throw .notFHIR }
        guard let name = raw.stringValue else {
            throw .invalidResourceType(found: JSONWriter.minifiedString(raw).prefix(40).description, offset: object.sourceRange?.lowerBound)
        }
        let type = FHIRResourceType(name)
        guard type.isWellFormed else { throw .invalidResourceType(found: String(name.prefix(40)), offset: object.sourceRange?.lowerBound) }
        return type
    }

    /// An `id` value checked against FHIR's id alphabet (``isValidIdentifier(_:)``).
    public static func validIdentifier(_ value: JSONValue, type: FHIRResourceType, offset: Int?) throws(FHIRError) -> String {
        guard let id = value.stringValue else {
            throw .invalidIdentifier(resourceType: type.rawValue, id: JSONWriter.minifiedString(value), offset: offset)
        }
        guard isValidIdentifier(id) else { throw .invalidIdentifier(resourceType: type.rawValue, id: id, offset: offset) }
        return id
    }

    /// The longest id accepted. FHIR R4 allows 64 characters, but real EHR output sends longer
    /// ids in the same alphabet (an Epic IPS from an HL7 connectathon names a Medication with 109):
    /// they are taken as they are, up to this bound, rather than refusing the whole document.
    public static let maximumIdentifierLength = 256

    /// Whether text is a usable FHIR id: 1–``maximumIdentifierLength`` of `A–Z a–z 0–9 - .`.
    public static func isValidIdentifier(_ id: String) -> Bool {
        let u = id.utf8
        return (1...maximumIdentifierLength).contains(u.count) && u.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x2E
        }
    }
}

/// The parsed JSON of a resource, filled on first use and shared by copies of the resource.
final class ParsedJSON: Sendable {
    private let storage: Mutex<JSONObject?>

    init(_ value: JSONObject?) { storage = Mutex(value) }

    var value: JSONObject? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
