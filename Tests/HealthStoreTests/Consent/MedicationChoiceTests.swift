import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// Per-medication authorization on every engine: the person picks two of three medications
/// (one of them recorded by two providers) and the app reads exactly the records behind those
/// two, on every path; a medication that appears later is not read until picked, a new record
/// of a picked one is.
@Suite struct MedicationChoiceTests {
    static func statement(_ id: String, rxNorm: String, name: String, date: String = "2024-01-01") -> String {
        #"{"resourceType":"MedicationStatement","id":"\#(id)","status":"active","medicationCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"\#(rxNorm)","display":"\#(name)"}]},"effectiveDateTime":"\#(date)"}"#
    }

    @Test(arguments: StoreEngine.all)
    func theAppReadsOnlyThePickedMedications(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        try await w.importResources([
            Self.statement("metformin-1", rxNorm: "860975", name: "Metformin 500 MG"), Self.statement("lisinopril", rxNorm: "314076", name: "Lisinopril 10 MG"),
            Self.statement("atorvastatin", rxNorm: "617312", name: "Atorvastatin 10 MG"),
        ], source: "clinic")
        try await w.importResources([Self.statement("metformin-2", rxNorm: "860975", name: "Metformin 500 MG", date: "2024-03-01")], source: "hospital")
        let creds = try await w.consent.register(
            name: "Pills", purpose: "Reminders", privacyPolicyURL: URL(string: "https://example.org/p")!, requestedTypes: [.clinical(.medication)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.medication)], newData: .share))
        let view = try await w.consent.view(appID: creds.appID)
        // Before any pick the grant reads every medication.
        #expect(try await view.count(RecordQuery(type: .medication)) == 4)
        let before = try await view.currentAnchor()

        let offered = try await w.consent.offeredMedications()
        #expect(offered.count == 3)
        let metformin = try #require(offered.first { $0.rxNormCodes == ["860975"] })
        let lisinopril = try #require(offered.first { $0.rxNormCodes == ["314076"] })
        #expect(metformin.records.count == 2 && Set(metformin.sources.map(\.identifier)) == ["clinic", "hospital"])
        await #expect(throws: ConsentError.medicationNotOffered("nope")) { try await w.consent.pickMedications(appID: creds.appID, ["nope"]) }
        try await w.consent.pickMedications(appID: creds.appID, [metformin.id, lisinopril.id])
        #expect(try await w.consent.medicationChoice(appID: creds.appID) == [metformin.id, lisinopril.id])

        let want = ["lisinopril", "metformin-1", "metformin-2"]
        #expect(try await view.records(RecordQuery(type: .medication)).map(\.fhirResource.identifier).sorted() == want)
        #expect(try await view.count(RecordQuery(type: nil)) == 3)
        #expect(try await view.changes(AnchoredQuery(type: .medication, anchor: nil)).added.map(\.fhirResource.identifier).sorted() == want)
        #expect(try await view.resource(RecordIdentity(source: "clinic", resourceType: "MedicationStatement", identifier: "atorvastatin")) == nil)
        let page = try await view.resources(ResourceQuery(resourceTypes: ["MedicationStatement"]), countingTotal: true)
        #expect(page.total == 3 && page.resources.map(\.stored.resource.identifier).sorted() == want)
        let entries = try await view.medications()
        #expect(Set(entries.map(\.entry.id)) == [metformin.id, lisinopril.id])
        #expect(entries.first { $0.entry.id == metformin.id }?.entry.records.count == 2)
        // A pick is a change of the medication grant: a query anchored before it gets what is visible again.
        #expect(try await view.changes(AnchoredQuery(type: .medication, anchor: before)).added.count == 3)

        // A medication that appears later waits for a pick; a new record of a picked one is read.
        try await w.importResources([Self.statement("warfarin", rxNorm: "855332", name: "Warfarin 5 MG")], source: "clinic")
        try await w.importResources([Self.statement("metformin-3", rxNorm: "860975", name: "Metformin 500 MG", date: "2024-06-01")], source: "pharmacy")
        #expect(try await view.records(RecordQuery(type: .medication)).map(\.fhirResource.identifier).sorted() == want + ["metformin-3"])

        // Picking none hides every medication; removing the pick reads all again.
        try await w.consent.pickMedications(appID: creds.appID, [])
        #expect(try await view.count(RecordQuery(type: .medication)) == 0)
        try await w.consent.pickMedications(appID: creds.appID, nil)
        #expect(try await view.count(RecordQuery(type: .medication)) == 6)
        // Revoking removes the pick with the grants.
        try await w.consent.pickMedications(appID: creds.appID, [lisinopril.id])
        try await w.consent.revoke(appID: creds.appID)
        #expect(try await w.consent.medicationChoice(appID: creds.appID) == nil)
    }

    @Test(arguments: [StoreEngine.sqlite])
    func onlyAnAppThatAsksForMedicationsGetsAPick(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let creds = try await w.consent.register(
            name: "Labs", purpose: "Charts", privacyPolicyURL: URL(string: "https://example.org/p")!, requestedTypes: [.clinical(.labResult)])
        await #expect(throws: ConsentError.typeNotRequested(.clinical(.medication))) { try await w.consent.pickMedications(appID: creds.appID, []) }
    }
}
