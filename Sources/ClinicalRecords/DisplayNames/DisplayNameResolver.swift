import FHIR
import Foundation

/// Picks the name people see for a record.
///
/// In order: the concept's `text`; the display of the coding from the system that matters for
/// the type (LOINC for observations, CVX for immunizations, RxNorm for medications, SNOMED for
/// conditions); any coding's display; a name from the shipped code tables; the referenced
/// medication's name; finally the code itself or the resource type.
public struct DisplayNameResolver: Sendable {
    /// The code tables used when the data carries no display.
    public let tables: CodeTables

    /// Makes a resolver; `tables` are the fallback for codings that carry no display.
    public init(tables: CodeTables = .shipped) {
        self.tables = tables
    }

    /// The display name of a resource.
    ///
    /// - Parameter resolve: finds a referenced resource (a Medication named by a
    ///   `medicationReference`) in the bundle the resource came from.
    public func displayName<Object: FHIRObjectReading>(resourceType: FHIRResourceType, json: Object, resolve: (String) -> Object? = { _ in nil }) -> String {
        let concept = primaryConcept(resourceType: resourceType, json: json, resolve: resolve)
        if let concept, let name = name(of: concept, preferring: preferredSystems(resourceType)) { return name }
        switch resourceType.rawValue {
        case "MedicationRequest", "MedicationOrder", "MedicationStatement", "MedicationDispense", "MedicationAdministration":
            if let display = json.reference("medicationReference")?.display, !display.isBlank { return display }
        case "DocumentReference":
            if let d = json.string("description"), !d.isBlank { return d }
        case "Coverage":
            if let payor = json.firstObject("payor")?.string("display"), !payor.isBlank { return payor }
            if let name = json.firstObject("class")?.string("name"), !name.isBlank { return name }
        default: break
        }
        if let coding = concept?.coding.first(where: { $0.code != nil }), let code = coding.code {
            return "\(systemLabel(coding.system)) \(code)"
        }
        return resourceType.rawValue
    }

    /// A concept's best name: text, preferred display, any display, then a table lookup.
    public func name(of concept: CodeableConcept, preferring systems: [String] = []) -> String? {
        if let t = concept.text, !t.isBlank { return t.trimmed }
        for system in systems {
            if let d = concept.coding(system: system)?.display, !d.isBlank { return d.trimmed }
        }
        if let d = concept.coding.lazy.compactMap(\.display).first(where: { !$0.isBlank }) { return d.trimmed }
        for coding in concept.coding {
            guard let code = coding.code else { continue }
            if coding.system == CodeSystem.cvx, let v = tables.vaccine(cvx: code) { return v.shortName }
            if coding.system == CodeSystem.loinc, let n = tables.loincNames[code] { return n.name }
        }
        return nil
    }

    /// The concept that names a resource of the given type.
    public func primaryConcept<Object: FHIRObjectReading>(resourceType: FHIRResourceType, json o: Object, resolve: (String) -> Object? = { _ in nil }) -> CodeableConcept? {
        switch resourceType.rawValue {
        case "AllergyIntolerance": return o.codeableConcept("code") ?? o.codeableConcept("substance")
        case "Immunization": return o.codeableConcept("vaccineCode")
        case "MedicationRequest", "MedicationOrder", "MedicationStatement", "MedicationDispense", "MedicationAdministration":
            if let c = o.codeableConcept("medicationCodeableConcept") { return c }
            if let ref = o.reference("medicationReference")?.reference {
                if ref.hasPrefix("#") {
                    let id = String(ref.dropFirst())
                    let contained = o.objects("contained").first { $0.string("id") == id }
                    return contained?.codeableConcept("code")
                }
                return resolve(ref)?.codeableConcept("code")
            }
            return nil
        case "DocumentReference": return o.codeableConcept("type")
        case "Coverage": return o.codeableConcept("type")
        default: return o.codeableConcept("code")
        }
    }

    private func preferredSystems(_ type: FHIRResourceType) -> [String] {
        switch type.rawValue {
        case "Observation", "DiagnosticReport", "DocumentReference": return [CodeSystem.loinc]
        case "Immunization": return [CodeSystem.cvx]
        case "MedicationRequest", "MedicationOrder", "MedicationStatement", "MedicationDispense", "MedicationAdministration": return [CodeSystem.rxNorm]
        case "Condition", "Procedure", "AllergyIntolerance": return [CodeSystem.snomed]
        default: return []
        }
    }

    private func systemLabel(_ system: String?) -> String {
        switch system {
        case CodeSystem.loinc?: return "LOINC"
        case CodeSystem.cvx?: return "CVX"
        case CodeSystem.rxNorm?: return "RxNorm"
        case CodeSystem.snomed?: return "SNOMED CT"
        default: return "Code"
        }
    }
}

extension String {
    var isBlank: Bool { utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }

    /// Without surrounding whitespace; the common case (nothing to trim) costs no Foundation call.
    var trimmed: String {
        guard let first = utf8.first, let last = utf8.last else { return self }
        let ws: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return ws(first) || ws(last) ? trimmingCharacters(in: .whitespacesAndNewlines) : self
    }
}

