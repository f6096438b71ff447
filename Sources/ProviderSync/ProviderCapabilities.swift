import FHIR
import Foundation

/// What a provider's CapabilityStatement (R4) or Conformance (DSTU2) says this client needs:
/// its FHIR release, the resource types it serves, whether it offers `Patient/$everything`, and
/// a name for the organization when nobody gave one.
struct ProviderCapabilities: Sendable, Hashable {
    /// DSTU2 (1.0.x) rather than R4.
    var isDSTU2 = false
    /// The types the server lists; `nil` when it lists none (then every type is tried).
    var resourceTypes: Set<String>?
    /// `Patient/$everything` is listed (on Patient or at the server level).
    var offersEverything = false
    /// The publisher or the software's name.
    var organizationName: String?

    static let limits = JSONLimits(maxDocumentBytes: 16 << 20, maxDepth: 64, maxStringBytes: 1 << 20, maxContainerElements: 100_000)

    init() {}

    init(statement data: Data) throws(ProviderSyncError) {
        let value: JSONValue
        do { value = try JSONReader(limits: Self.limits).read(data) } catch {
            throw .discovery(base: "", reason: "the CapabilityStatement is not JSON (\(error))")
        }
        guard let type = value["resourceType"]?.stringValue, type == "CapabilityStatement" || type == "Conformance" else {
            throw .discovery(base: "", reason: "metadata is not a CapabilityStatement")
        }
        let version = value["fhirVersion"]?.stringValue ?? ""
        isDSTU2 = type == "Conformance" || version.hasPrefix("1.0") || version.hasPrefix("0.")
        organizationName = value["publisher"]?.stringValue ?? value["name"]?.stringValue ?? value["software"]?["name"]?.stringValue
        var types = Set<String>()
        for rest in value["rest"]?.arrayValue ?? [] where (rest["mode"]?.stringValue ?? "server") == "server" {
            for op in rest["operation"]?.arrayValue ?? [] where Self.isEverything(op) { offersEverything = true }
            for resource in rest["resource"]?.arrayValue ?? [] {
                guard let name = resource["type"]?.stringValue else { continue }
                types.insert(name)
                if name == "Patient", (resource["operation"]?.arrayValue ?? []).contains(where: Self.isEverything) { offersEverything = true }
            }
        }
        resourceTypes = types.isEmpty ? nil : types
    }

    private static func isEverything(_ op: JSONValue) -> Bool {
        let name = op["name"]?.stringValue ?? ""
        let definition = op["definition"]?.stringValue ?? op["definition"]?["reference"]?.stringValue ?? ""
        return name == "everything" || name == "$everything" || definition.hasSuffix("Patient-everything") || definition.hasSuffix("patient-everything")
    }

    /// Whether a type is worth searching.
    func serves(_ type: String) -> Bool { resourceTypes?.contains(type) ?? true }
}
