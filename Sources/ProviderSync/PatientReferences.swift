import FHIR
import Foundation

/// Which Patient a downloaded resource is about, from the elements US Core resources name it in.
enum PatientReferences {
    /// The elements that point at the patient in the patient-compartment types downloaded.
    static let elements = ["subject", "patient", "beneficiary", "individual"]

    /// Whether a resource is another Patient, or names another Patient (by a plain
    /// `Patient/<id>` reference, relative or absolute) where it names whom it is about.
    static func namesOtherPatient(_ resource: FHIRResource, than patient: String) -> Bool {
        if resource.resourceType == .patient { return resource.identifier != patient }
        guard let object = try? resource.json() else { return false }
        for element in elements {
            guard let reference = object[element]?["reference"]?.stringValue else { continue }
            let parts = reference.split(separator: "/")
            guard parts.count >= 2, parts[parts.count - 2] == "Patient" else { continue }
            if parts[parts.count - 1] != patient { return true }
        }
        return false
    }
}
