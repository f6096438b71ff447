import ByteEncodings
import Foundation

/// A FHIR Bundle of any type (collection, searchset, transaction, document, …).
public struct FHIRBundle: Sendable {
    /// One entry of a bundle.
    public struct Entry: Sendable {
        /// The entry's position in the bundle.
        public let index: Int
        /// The entry's `fullUrl`, e.g. `urn:uuid:…`, an absolute URL or `resource:N`.
        public let fullUrl: String?
        /// The resource read from the entry, when it carries one.
        public let resource: FHIRResource?
    }

    /// `Bundle.type`.
    public let type: String?
    /// The entries, in order (nested bundles' entries follow their parent's position).
    public let entries: [Entry]
    /// The release the bundle was read as.
    public let fhirVersion: FHIRVersion

    /// The resources of all entries that carry one.
    public var resources: [FHIRResource] { entries.compactMap(\.resource) }

    /// Finds the entry a reference points to: by `fullUrl` (`resource:N`, `urn:uuid:…`, absolute URL)
    /// or by a relative `Type/id`.
    public func entry(for reference: String) -> Entry? {
        if let e = entries.first(where: { $0.fullUrl == reference }) { return e }
        let ref = Reference(reference: reference)
        guard let (type, id) = ref.typeAndIdentifier else { return nil }
        return entries.first { $0.resource?.resourceType.rawValue == type && $0.resource?.identifier == id }
    }
}

/// Reads a Bundle's entries out of its parsed JSON, keeping each resource's original bytes.
struct FHIRBundleReader {
    let data: Data
    let versionHint: FHIRVersion?
    let maxEntries: Int
    let sourceURL: URL?

    func read(_ object: JSONObject) throws(FHIRError) -> FHIRBundle {
        var raw: [(fullUrl: String?, object: JSONObject)] = []
        try collect(object, into: &raw, depth: 0)
        let version = versionHint ?? FHIRVersion.primary(for: Self.majority(raw.map { Self.release(of: $0.object) }))
        var entries: [FHIRBundle.Entry] = []
        entries.reserveCapacity(raw.count)
        for (index, item) in raw.enumerated() {
            entries.append(try entry(index: index, fullUrl: item.fullUrl, object: item.object, version: version))
        }
        return FHIRBundle(type: object.string("type"), entries: entries, fhirVersion: version)
    }

    /// One entry's resource, read as `version`, keeping its original bytes; with `whole` false,
    /// `object` holds only some of its members, the resource parses its bytes when read, and
    /// its ``FHIRResource/data`` is a slice of the document's (indexed from its `startIndex`).
    func entry(index: Int, fullUrl: String?, object: JSONObject, version: FHIRVersion, whole: Bool = true) throws(FHIRError) -> FHIRBundle.Entry {
        let type = try typeOf(object, index: index)
        let id = try identifier(of: object, type: type, fullUrl: fullUrl, index: index)
        let bytes: Data
        if let range = object.sourceRange {
            let bounds = (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound)
            // Read in part, the resource is on its way into a store: its bytes stay a slice of
            // the document's instead of a copy of their own.
            bytes = whole ? data.subdata(in: bounds) : data[bounds]
        } else {
            bytes = Data(JSONWriter.minified(.object(object)))
        }
        let url = fullUrl.flatMap { $0.hasPrefix("http") ? URL(string: $0) : nil } ?? sourceURL
        let resource = whole
            ? FHIRResource(parsed: object, resourceType: type, identifier: id, fhirVersion: version, data: bytes, sourceURL: url)
            : FHIRResource(storedData: bytes, resourceType: type, identifier: id, fhirVersion: version, sourceURL: url)
        return FHIRBundle.Entry(index: index, fullUrl: fullUrl, resource: resource)
    }

    /// Gathers entry resources, descending into nested bundles (a batch response holds searchsets).
    private func collect(_ bundle: JSONObject, into out: inout [(fullUrl: String?, object: JSONObject)], depth: Int) throws(FHIRError) {
        guard let entryValue = bundle["entry"] else { return }
        guard let list = entryValue.arrayValue else { throw .invalidBundleEntry(index: 0, reason: "Bundle.entry is not an array") }
        for (k, e) in list.enumerated() {
            guard let entry = e.objectValue else { throw .invalidBundleEntry(index: k, reason: "entry is not an object") }
            guard let r = entry["resource"] else { continue }  // response-only entries carry no resource
            guard let resource = r.objectValue else { throw .invalidBundleEntry(index: k, reason: "entry.resource is not an object") }
            if resource["resourceType"]?.stringValue == "Bundle", depth < 4, resource["entry"] != nil {
                try collect(resource, into: &out, depth: depth + 1)
                continue
            }
            if out.count >= maxEntries { throw .tooManyEntries(limit: maxEntries) }
            out.append((entry.string("fullUrl"), resource))
        }
    }

    private func typeOf(_ object: JSONObject, index: Int) throws(FHIRError) -> FHIRResourceType {
        do { return try FHIRResource.resourceType(of: object) } catch { throw .invalidBundleEntry(index: index, reason: error.description) }
    }

    /// The entry's `id`; else the id in its `fullUrl`; else one derived from its bytes, so that
    /// re-importing the same file finds the same record (real DSTU2 exports leave ids out).
    private func identifier(of object: JSONObject, type: FHIRResourceType, fullUrl: String?, index: Int) throws(FHIRError) -> String {
        if let idValue = object["id"] {
            do { return try FHIRResource.validIdentifier(idValue, type: type, offset: object.sourceRange?.lowerBound) } catch {
                throw .invalidBundleEntry(index: index, reason: error.description)
            }
        }
        return Self.identifier(fullUrl: fullUrl) ?? Self.derivedIdentifier(data, range: object.sourceRange ?? 0..<0)
    }

    /// The id a `fullUrl` ends in (`urn:uuid:`, `urn:oid:` or a URL's `Type/id`), when valid.
    static func identifier(fullUrl: String?) -> String? {
        guard let fullUrl else { return nil }
        let last = fullUrl.hasPrefix("urn:uuid:") ? String(fullUrl.dropFirst(9))
            : fullUrl.hasPrefix("urn:oid:") ? String(fullUrl.dropFirst(8))
            : Reference(reference: fullUrl).typeAndIdentifier?.identifier ?? ""
        return FHIRResource.isValidIdentifier(last) ? last : nil
    }

    /// The id made from an entry's bytes when it has neither an `id` nor a usable `fullUrl`.
    static func derivedIdentifier(_ data: Data, range: Range<Int>) -> String { "derived-" + ContentDigest.hex(data, range: range) }

    /// The release an entry's content points to (`nil` without a marker or a readable type).
    static func release(of object: JSONObject) -> FHIRRelease? {
        guard let t = try? FHIRResource.resourceType(of: object) else { return nil }
        return FHIRReleaseDetector.release(of: object, type: t)
    }

    /// The release most entries point to; R4 on a tie.
    static func majority(_ releases: [FHIRRelease?]) -> FHIRRelease {
        var dstu2 = 0
        var r4 = 0
        for r in releases {
            switch r {
            case .dstu2?: dstu2 += 1
            case .r4?: r4 += 1
            default: break
            }
        }
        return dstu2 > r4 ? .dstu2 : .r4
    }
}

/// A stable, non-cryptographic 128-bit digest (two FNV-1a lanes) for naming content that has no id.
enum ContentDigest {
    static func hex(_ data: Data, range: Range<Int>) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        data.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            let r = range.isEmpty ? 0..<p.count : range.clamped(to: 0..<p.count)
            for k in r {
                a = (a ^ UInt64(p[k])) &* 0x100_0000_01b3
                b = (b ^ UInt64(p[k] ^ 0x5A)) &* 0x100_0000_01b3
            }
        }
        return Hex.encode(withUnsafeBytes(of: a.bigEndian, Array.init) + withUnsafeBytes(of: b.bigEndian, Array.init))
    }
}
