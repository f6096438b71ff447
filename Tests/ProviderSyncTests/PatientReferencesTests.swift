import FHIR
import Foundation
import Testing

@testable import ProviderSync

/// Which Patient a reference names: the last two non-empty path segments, `Patient/<id>`.
@Suite struct PatientReferencesTests {
    /// The rule as first written: split the String on `/`, dropping empty segments.
    static func splitting(_ reference: String) -> Substring? {
        let parts = reference.split(separator: "/")
        guard parts.count >= 2, parts[parts.count - 2] == "Patient" else { return nil }
        return parts[parts.count - 1]
    }

    @Test(arguments: [
        "Patient/123", "Patient/123/", "/Patient/123", "http://x.org/fhir/Patient/abc", "Patient", "Patient/", "123", "", "/", "//",
        "Patient//123", "Group/1", "Patient/1/_history/2", "Patients/1", "patient/1", "a/Patient/b/c", "Patient/é", "Patient/\u{301}1",
        "Patient\u{301}/1", "Pati\u{0435}nt/1", "urn:uuid:1", "#p", "Patient/123/Patient/456",
    ])
    func patientIDsAreTheSplitStringsLastSegments(_ reference: String) {
        #expect(PatientReferences.patientID(reference) == Self.splitting(reference), "\(reference)")
    }

    @Test func aResourceNamingAnotherPatientIsFoundOnTheTapeAsOnTheTree() throws {
        let json = #"{"resourceType":"Observation","id":"o","subject":{"reference":"Patient/other"}}"#
        let resource = try FHIRResource(data: Data(json.utf8))
        let tape = try JSONTape(Array(json.utf8))
        let object = try #require(TapeObject(tape, tape.root))
        #expect(PatientReferences.namesOtherPatient(resource, object, than: "me"))
        #expect(PatientReferences.namesOtherPatient(resource, try resource.json(), than: "me"))
        #expect(!PatientReferences.namesOtherPatient(resource, object, than: "other"))
    }
}
