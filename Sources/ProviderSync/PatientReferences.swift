import FHIR
import Foundation

/// Which Patient a downloaded resource is about, from the elements US Core resources name it in.
enum PatientReferences {
    /// The elements that point at the patient in the patient-compartment types downloaded.
    static let elements = ["subject", "patient", "beneficiary", "individual"]

    /// Whether a resource is another Patient, or names another Patient (by a plain
    /// `Patient/<id>` reference, relative or absolute) where it names whom it is about.
    static func namesOtherPatient(_ resource: FHIRResource, than patient: String) -> Bool {
        guard let object = try? resource.json() else { return resource.resourceType == .patient && resource.identifier != patient }
        return namesOtherPatient(resource, object, than: patient)
    }

    /// The same, reading `object` (the resource's JSON, as a tree or on its tape).
    static func namesOtherPatient(_ resource: FHIRResource, _ object: some FHIRObjectReading, than patient: String) -> Bool {
        if resource.resourceType == .patient { return resource.identifier != patient }
        for element in elements {
            guard let reference = object.object(element)?.string("reference") else { continue }
            if let id = patientID(reference), id != patient { return true }
        }
        return false
    }

    /// The id of a `Patient/<id>` reference (its last two non-empty path segments), else `nil`.
    static func patientID(_ reference: String) -> Substring? {
        let u = reference.utf8
        // Beyond ASCII a slash can start a grapheme (a combining mark after it), where splitting
        // the String does not split: leave that to the String.
        guard u.allSatisfy({ $0 < 0x80 }) else {
            let parts = reference.split(separator: "/")
            guard parts.count >= 2, parts[parts.count - 2] == "Patient" else { return nil }
            return parts[parts.count - 1]
        }
        // The last two non-empty segments, found from the end without making a list.
        var id: Range<String.Index>?
        var type: Range<String.Index>?
        func found(_ segment: Range<String.Index>) {
            if id == nil { id = segment } else if type == nil { type = segment }
        }
        var end = u.endIndex
        var i = end
        while i > u.startIndex, type == nil {
            let before = u.index(before: i)
            if u[before] == UInt8(ascii: "/") {
                if i < end { found(i..<end) }
                end = before
            }
            i = before
        }
        if type == nil, i < end { found(i..<end) }
        guard let id, let type, reference[type] == "Patient" else { return nil }
        return reference[id]
    }
}
