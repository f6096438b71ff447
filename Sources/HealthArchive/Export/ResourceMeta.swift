import FHIR
import Foundation

/// What the store knows of a resource beside its bytes, one line of a `.meta.ndjson` file per
/// line of its `.ndjson` file: the id (a Bundle entry without one got an id from its fullUrl or
/// content, which its bytes do not hold), the FHIR version it was read as (a DSTU2 Bundle's
/// entries are read as the Bundle's majority release, which a lone resource might not detect),
/// its fullUrl, the display name the store computed, and the line breaks to put back
/// (``LineBreaks``).
public struct ResourceMeta: Sendable, Hashable {
    /// The FHIR resource type.
    public var resourceType: String
    /// The resource's id as stored.
    public var id: String
    /// The FHIR version it was stored as (`4.0.1`, `1.0.2`).
    public var fhirVersion: String
    /// The Bundle entry's fullUrl, when it had one.
    public var fullUrl: String?
    /// The name the store showed for it.
    public var displayName: String
    /// Offsets of line feeds replaced by spaces.
    public var lf: [Int]
    /// Offsets of carriage returns replaced by spaces.
    public var cr: [Int]

    /// Makes a meta line.
    public init(resourceType: String, id: String, fhirVersion: String, fullUrl: String?, displayName: String, lf: [Int], cr: [Int]) {
        self.resourceType = resourceType
        self.id = id
        self.fhirVersion = fhirVersion
        self.fullUrl = fullUrl
        self.displayName = displayName
        self.lf = lf
        self.cr = cr
    }

    /// The line's JSON (one line, no line break).
    public func encoded() -> [UInt8] {
        var members = [
            JSONMember("resourceType", .string(resourceType)), JSONMember("id", .string(id)), JSONMember("fhirVersion", .string(fhirVersion)),
        ]
        if let fullUrl { members.append(JSONMember("fullUrl", .string(fullUrl))) }
        members.append(JSONMember("displayName", .string(displayName)))
        if !lf.isEmpty { members.append(JSONMember("lf", .array(lf.map { .number(JSONNumber($0)) }))) }
        if !cr.isEmpty { members.append(JSONMember("cr", .array(cr.map { .number(JSONNumber($0)) }))) }
        return JSONWriter.minified(.object(JSONObject(members)))
    }

    /// Reads a meta line; the reason when it is not one.
    public init(decoding line: [UInt8]) throws(ArchiveLineError) {
        let value: JSONValue
        do { value = try JSONReader().read(line) } catch { throw ArchiveLineError("not JSON: \(error)") }
        guard let o = value.objectValue, let type = o["resourceType"]?.stringValue, let id = o["id"]?.stringValue,
            let version = o["fhirVersion"]?.stringValue, let name = o["displayName"]?.stringValue
        else { throw ArchiveLineError("a meta line needs resourceType, id, fhirVersion and displayName") }
        func offsets(_ key: String) throws(ArchiveLineError) -> [Int] {
            guard let v = o[key] else { return [] }
            guard let list = v.arrayValue else { throw ArchiveLineError("\(key) is not a list") }
            var out: [Int] = []
            for item in list {
                guard let n = item.numberValue.flatMap({ Int($0.text) }) else { throw ArchiveLineError("\(key) holds a non-integer") }
                out.append(n)
            }
            return out
        }
        self.init(resourceType: type, id: id, fhirVersion: version, fullUrl: o["fullUrl"]?.stringValue, displayName: name, lf: try offsets("lf"), cr: try offsets("cr"))
    }
}

/// Why one line of an export file is not what the format says (the reader adds file and line).
public struct ArchiveLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let description: String
    /// Makes an error.
    public init(_ description: String) { self.description = description }
}
