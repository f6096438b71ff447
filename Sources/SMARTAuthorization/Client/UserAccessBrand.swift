import FHIR
import Foundation

/// One entry of a SMART User-access Brands bundle (Bundle of Organization + Endpoint,
/// https://hl7.org/fhir/smart-app-launch/brands.html): Organization.name, its alias/website/logo,
/// and each Endpoint it references via Organization.endpoint (or the Endpoint's
/// managingOrganization); Endpoint.address is the FHIR base. Organizations with a `partOf`
/// brand still list their own endpoints.
///
/// This is how a person picks a provider by the name they know ("ExampleHealth Community
/// Hospital") instead of typing a FHIR base URL. Endpoints are gathered from every place the
/// spec puts them: `Organization.endpoint`, the `organization-portal` extension's
/// `portalEndpoint`, and Endpoints naming the Organization as `managingOrganization`. An
/// affiliate (`partOf`) with no endpoint of its own gets its parent's, as the spec's example
/// 2 shows: its card connects through the parent's portal.
public struct UserAccessBrand: Sendable, Hashable {
    /// The Organization's `id` (its `fullUrl` when it has none).
    public var organizationID: String
    /// `Organization.name`, the brand as users know it.
    public var name: String
    /// `Organization.alias`: former and local names, for searching.
    public var aliases: [String]
    /// The brand's public website (the first `telecom` with `system` `url`).
    public var website: URL?
    /// The brand's logo (`organization-brand` extension, `brandLogo`): https or a `data:` URL.
    public var logo: URL?
    /// The FHIR endpoints to connect to, each once, in the order found.
    public var endpoints: [Endpoint]

    /// One FHIR server a brand's users can connect an app to.
    public struct Endpoint: Sendable, Hashable {
        /// The Endpoint's `id` (its `fullUrl` when it has none).
        public var id: String
        /// `Endpoint.name`, e.g. "FHIR R4 Endpoint for ExampleHealth".
        public var name: String?
        /// `Endpoint.address`: the FHIR base URL.
        public var fhirBase: URL
        /// The first `endpoint-fhir-version` extension's code (`4.0.1`…), to prefer R4 over DSTU2.
        public var fhirVersion: String?

        /// An endpoint from its parts.
        public init(id: String, name: String?, fhirBase: URL, fhirVersion: String?) {
            self.id = id
            self.name = name
            self.fhirBase = fhirBase
            self.fhirVersion = fhirVersion
        }
    }

    /// A brand from its parts.
    public init(organizationID: String, name: String, aliases: [String], website: URL?, logo: URL?, endpoints: [Endpoint]) {
        self.organizationID = organizationID
        self.name = name
        self.aliases = aliases
        self.website = website
        self.logo = logo
        self.endpoints = endpoints
    }

    /// The extension holding a brand's logo.
    static let brandExtension = "http://hl7.org/fhir/StructureDefinition/organization-brand"
    /// The extension describing a portal and its endpoints.
    static let portalExtension = "http://hl7.org/fhir/StructureDefinition/organization-portal"
    /// The extension giving an Endpoint's FHIR version.
    static let fhirVersionExtension = "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version"

    /// Reads the bundle (size-capped by JSONLimits default); brands in bundle order;
    /// an Endpoint with no usable https/http address is skipped; a bundle of no brands throws .noBrands.
    ///
    /// A brand is an Organization with a non-empty `name` and at least one usable endpoint;
    /// other Organizations are left out, as a brand nobody can connect to is no choice at all.
    /// Published bundles are large and hand-maintained, so one odd entry is skipped rather than
    /// failing the file; only a file that is not a Bundle with an `entry` array is malformed.
    /// References resolve by `fullUrl` (absolute or `urn:uuid:`) or as `Endpoint/id`.
    public static func read(bundle data: Data) throws(SMARTClientError) -> [UserAccessBrand] {
        let object = try ClientJSON.object(data, limits: .default)
        guard let resourceType = object["resourceType"]?.stringValue else { throw .malformedBrands("no resourceType") }
        guard resourceType == "Bundle" else { throw .malformedBrands("resourceType is \(resourceType.debugDescription), not \"Bundle\"") }
        guard let entries = object["entry"] else { throw .noBrands }
        guard let list = entries.arrayValue else { throw .malformedBrands("entry is not an array") }

        var organizations: [(id: String, keys: [String], resource: JSONObject)] = []
        var endpoints: [Endpoint] = []
        var endpointIndex: [String: Int] = [:]
        var managed: [String: [Int]] = [:]
        for entry in list {
            guard let entry = entry.objectValue, let resource = entry["resource"]?.objectValue else { continue }
            let fullURL = entry["fullUrl"]?.stringValue
            let id = resource["id"]?.stringValue
            switch resource["resourceType"]?.stringValue {
            case "Organization":
                guard let identity = id ?? fullURL else { continue }
                organizations.append((identity, referenceKeys(type: "Organization", id: id, fullURL: fullURL), resource))
            case "Endpoint":
                guard let identity = id ?? fullURL, let endpoint = endpoint(resource, id: identity) else { continue }
                let keys = referenceKeys(type: "Endpoint", id: id, fullURL: fullURL)
                for key in keys where endpointIndex[key] == nil { endpointIndex[key] = endpoints.count }
                if let manager = resource["managingOrganization"]?.objectValue?["reference"]?.stringValue {
                    for key in candidateKeys(manager) { managed[key, default: []].append(endpoints.count) }
                }
                endpoints.append(endpoint)
            default:
                continue
            }
        }

        var own: [[Endpoint]] = []
        for organization in organizations {
            var found: [Endpoint] = []
            func add(_ index: Int?) {
                guard let index, !found.contains(endpoints[index]) else { return }
                found.append(endpoints[index])
            }
            for reference in references(organization.resource) {
                add(candidateKeys(reference).lazy.compactMap { endpointIndex[$0] }.first)
            }
            for index in Set(organization.keys.flatMap { managed[$0] ?? [] }).sorted() { add(index) }
            own.append(found)
        }
        var byKey: [String: Int] = [:]
        for (index, organization) in organizations.enumerated() {
            for key in organization.keys where byKey[key] == nil { byKey[key] = index }
        }

        var brands: [UserAccessBrand] = []
        for (index, organization) in organizations.enumerated() {
            let resource = organization.resource
            guard let name = resource["name"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else { continue }
            var usable = own[index]
            if usable.isEmpty, let parent = resource["partOf"]?.objectValue?["reference"]?.stringValue,
               let parentIndex = candidateKeys(parent).lazy.compactMap({ byKey[$0] }).first {
                usable = own[parentIndex]
            }
            guard !usable.isEmpty else { continue }
            brands.append(UserAccessBrand(
                organizationID: organization.id, name: name,
                aliases: (resource["alias"]?.arrayValue ?? []).compactMap(\.stringValue),
                website: website(resource), logo: logo(resource), endpoints: usable
            ))
        }
        guard !brands.isEmpty else { throw .noBrands }
        return brands
    }

    /// The Endpoint, or nil when its address is not an absolute http or https URL.
    private static func endpoint(_ resource: JSONObject, id: String) -> Endpoint? {
        guard let address = resource["address"]?.stringValue, let base = ClientJSON.webURL(address, base: nil) else { return nil }
        let version = (resource["extension"]?.arrayValue ?? []).lazy.compactMap(\.objectValue)
            .first(where: { $0["url"]?.stringValue == fhirVersionExtension })?["valueCode"]?.stringValue
        return Endpoint(id: id, name: resource["name"]?.stringValue, fhirBase: base, fhirVersion: version)
    }

    /// The Endpoint references of an Organization: `endpoint`, then each portal's `portalEndpoint`.
    private static func references(_ organization: JSONObject) -> [String] {
        var result = (organization["endpoint"]?.arrayValue ?? []).compactMap { $0["reference"]?.stringValue }
        for portal in extensions(organization, portalExtension) {
            for part in (portal["extension"]?.arrayValue ?? []).compactMap(\.objectValue) where part["url"]?.stringValue == "portalEndpoint" {
                if let reference = part["valueReference"]?.objectValue?["reference"]?.stringValue { result.append(reference) }
            }
        }
        return result
    }

    /// The texts a reference to this resource may use: its `fullUrl` and `Type/id`.
    private static func referenceKeys(type: String, id: String?, fullURL: String?) -> [String] {
        var keys: [String] = []
        if let fullURL { keys.append(normalized(fullURL)) }
        if let id { keys.append("\(type)/\(id)") }
        return keys
    }

    /// A `fullUrl` or reference as a lookup key: trimmed, without a trailing `/`.
    private static func normalized(_ reference: String) -> String {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        return trimmed.hasSuffix("/") ? String(trimmed.dropLast()) : trimmed
    }

    /// The keys a reference may match, best first: itself, then for an absolute URL its
    /// `Type/id` tail (a reference may name the server's URL while `fullUrl` is another form).
    private static func candidateKeys(_ reference: String) -> [String] {
        let whole = normalized(reference)
        guard whole.hasPrefix("http://") || whole.hasPrefix("https://") else { return [whole] }
        let segments = whole.split(separator: "/")
        guard segments.count >= 4 else { return [whole] }
        return [whole, segments.suffix(2).joined(separator: "/")]
    }

    private static func website(_ organization: JSONObject) -> URL? {
        for telecom in (organization["telecom"]?.arrayValue ?? []).compactMap(\.objectValue) where telecom["system"]?.stringValue == "url" {
            if let value = telecom["value"]?.stringValue, let url = ClientJSON.webURL(value, base: nil) { return url }
        }
        return nil
    }

    private static func logo(_ organization: JSONObject) -> URL? {
        for brand in extensions(organization, brandExtension) {
            for part in (brand["extension"]?.arrayValue ?? []).compactMap(\.objectValue) where part["url"]?.stringValue == "brandLogo" {
                guard let text = part["valueUrl"]?.stringValue else { continue }
                if let url = ClientJSON.webURL(text, base: nil) { return url }
                if text.hasPrefix("data:"), let url = URL(string: text) ?? dataURL(text) { return url }
            }
        }
        return nil
    }

    /// A `data:` URL whose text has characters a strict URL parser refuses (the spec's own
    /// examples inline SVG with `<` and `'`), percent-encoded.
    private static func dataURL(_ text: String) -> URL? {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert("%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed).flatMap { URL(string: $0) }
    }

    private static func extensions(_ element: JSONObject, _ url: String) -> [JSONObject] {
        (element["extension"]?.arrayValue ?? []).compactMap(\.objectValue).filter { $0["url"]?.stringValue == url }
    }
}
