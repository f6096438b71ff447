import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import PatientSummary
import Testing
import TestSupport

/// The International Patient Summary built from a store: a document the repository's IPS rule
/// check (`Scripts/ips-check.py`, which knows nothing of this code) passes, each fact once, every
/// reference inside the Bundle, narratives escaped.
@Suite struct PatientSummaryTests {
    static func store(importing files: [(name: String, data: Data, source: String?)]) async throws -> (TemporaryDirectory, SQLiteHealthStore) {
        let dir = TemporaryDirectory()
        let store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        for file in files {
            var options = RecordImporter.Options()
            options.source = file.source.map { RecordSource(identifier: $0) }
            let result = await RecordImporter(store: store, options: options).importFHIR(file.data, name: file.name)
            #expect(result.status == .imported, "\(file.name) did not import: \(result.error?.description ?? "")")
        }
        return (dir, store)
    }

    /// Runs the IPS rule check on a Bundle; its JSON report of the one file.
    static func ipsCheck(_ bundle: Data, in dir: TemporaryDirectory) throws -> [String: Any] {
        let path = try dir.write("summary.json", String(decoding: bundle, as: UTF8.self))
        let script = FixtureFiles.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/ips-check.py")
        let out = Pipe()
        let child = try ChildProcess(
            executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", script.path, "--json", path], standardOutput: .pipe(out))
        let data = out.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((report["files"] as? [[String: Any]])?.first)
    }

    static func entries(_ summary: PatientSummary) -> [JSONObject] {
        summary.bundle.list("entry").compactMap { $0.objectValue?["resource"]?.objectValue }
    }

    @Test func aSyntheaPersonsSummaryPassesTheIPSRules() async throws {
        let name = "Antonio_Castellanos_6d2eba67-5b4a-403f-a29f-e6da3f1ea963.json"
        let (dir, store) = try await Self.store(importing: [(name, try FixtureFiles.data("data/fhir/synthea/" + name), nil)])
        let summary = try await PatientSummaryBuilder(store: store).build()
        let report = try Self.ipsCheck(summary.data, in: dir)
        #expect(report["pass"] as? Bool == true, "\(report)")

        let resources = Self.entries(summary)
        #expect(resources.first?.string("resourceType") == "Composition")
        #expect(resources.filter { $0.string("resourceType") == "Patient" }.count == 1)
        let codes = summary.sections.map(\.section.loinc)
        for required in ["11450-4", "48765-2", "10160-0"] { #expect(codes.contains(required)) }
        // Every reference in the Bundle names one of its entries.
        let fullUrls = Set(summary.bundle.list("entry").compactMap { $0.objectValue?.string("fullUrl") })
        var references: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let o):
                for m in o.members { if m.key == "reference", let s = m.value.stringValue { references.append(s) } else { walk(m.value) } }
            case .array(let a): a.forEach(walk)
            default: break
            }
        }
        walk(.object(summary.bundle))
        #expect(!references.isEmpty && references.allSatisfy { fullUrls.contains($0) || $0.hasPrefix("#") }, "\(references.filter { !fullUrls.contains($0) })")
    }

    /// Two providers sending the same vaccination (same code, date and dose): it is listed once.
    @Test func theSameFactFromTwoProvidersAppearsOnce() async throws {
        let immunization = #"{"resourceType":"Immunization","id":"i1","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"140"}],"text":"Influenza"},"patient":{"reference":"Patient/p1"},"occurrenceDateTime":"2021-10-01"}"#
        let patient = #"{"resourceType":"Patient","id":"p1","name":[{"family":"Example","given":["Robin"]}]}"#
        let bundle = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(patient)},{"resource":\#(immunization)}]}"#
        let (dir, store) = try await Self.store(importing: [("clinic.json", Data(bundle.utf8), "clinic"), ("pharmacy.json", Data(bundle.utf8), "pharmacy")])
        let summary = try await PatientSummaryBuilder(store: store).build()
        #expect(summary.sections.first { $0.section == .immunizations }?.count == 1)
        #expect(Self.entries(summary).filter { $0.string("resourceType") == "Immunization" }.count == 1)
        // Both providers' Patients are the one Patient the document is about.
        #expect(Self.entries(summary).filter { $0.string("resourceType") == "Patient" }.count == 1)
        // Both providers are kept, in a Provenance of the one entry.
        let provenance = try #require(Self.entries(summary).first { $0.string("resourceType") == "Provenance" })
        let agents = provenance.list("agent").compactMap { $0.objectValue?["who"]?.objectValue?.string("display") }
        #expect(Set(agents) == ["clinic", "pharmacy"])
        let immunizationURL = summary.bundle.list("entry").compactMap(\.objectValue).first { $0["resource"]?.objectValue?.string("resourceType") == "Immunization" }?.string("fullUrl")
        #expect(provenance.list("target").first?.objectValue?.string("reference") == immunizationURL)
        #expect(try Self.ipsCheck(summary.data, in: dir)["pass"] as? Bool == true)
    }

    /// One line per medication: an order from the clinic and a later statement from the pharmacy
    /// for the same RxNorm code are one entry (the newest), with both providers in its
    /// Provenance; another medication is its own line.
    @Test func eachMedicationIsOneLine() async throws {
        let rx = #"{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"314076","display":"Lisinopril 10 MG"}]}"#
        let patient = #"{"resourceType":"Patient","id":"p1","name":[{"family":"Example","given":["Robin"]}]}"#
        let clinic = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(patient)},{"resource":{"resourceType":"MedicationRequest","id":"r1","status":"active","intent":"order","medicationCodeableConcept":\#(rx),"subject":{"reference":"Patient/p1"},"authoredOn":"2023-01-01"}},{"resource":{"resourceType":"MedicationRequest","id":"r2","status":"active","intent":"order","medicationCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"860975","display":"Metformin 500 MG"}]},"subject":{"reference":"Patient/p1"},"authoredOn":"2023-02-01"}}]}"#
        let pharmacy = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(patient)},{"resource":{"resourceType":"MedicationStatement","id":"s1","status":"active","medicationCodeableConcept":\#(rx),"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2024-05-01"}}]}"#
        let (dir, store) = try await Self.store(importing: [("clinic.json", Data(clinic.utf8), "clinic"), ("pharmacy.json", Data(pharmacy.utf8), "pharmacy")])
        let summary = try await PatientSummaryBuilder(store: store).build()
        #expect(summary.sections.first { $0.section == .medications }?.count == 2)
        let lisinopril = Self.entries(summary).filter { JSONWriter.minifiedString(.object($0)).contains("314076") && $0.string("resourceType") != "Provenance" }
        #expect(lisinopril.count == 1 && lisinopril.first?.string("resourceType") == "MedicationStatement", "the newest record of it")
        let provenance = try #require(Self.entries(summary).first { $0.string("resourceType") == "Provenance" })
        #expect(Set(provenance.list("agent").compactMap { $0.objectValue?["who"]?.objectValue?.string("display") }) == ["clinic", "pharmacy"])
        #expect(try Self.ipsCheck(summary.data, in: dir)["pass"] as? Bool == true)
    }

    /// Text from a provider is data, never markup, in the narrative; an empty required section
    /// says why.
    @Test func narrativesEscapeWhatProvidersWrite() async throws {
        let condition = #"{"resourceType":"Condition","id":"c1","clinicalStatus":{"coding":[{"code":"active"}]},"code":{"text":"<script>alert(1)</script> & more"},"subject":{"reference":"Patient/p1"},"onsetDateTime":"2020-01-01"}"#
        let (dir, store) = try await Self.store(importing: [("c.json", Data(condition.utf8), nil)])
        let summary = try await PatientSummaryBuilder(store: store).build()
        let composition = try #require(Self.entries(summary).first)
        let problems = try #require(composition.list("section").compactMap(\.objectValue).first { $0["code"]?.objectValue?.list("coding").first?.objectValue?.string("code") == "11450-4" })
        let div = try #require(problems["text"]?.objectValue?.string("div"))
        #expect(div.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more") && !div.contains("<script>"))
        let allergies = try #require(composition.list("section").compactMap(\.objectValue).first { $0["code"]?.objectValue?.list("coding").first?.objectValue?.string("code") == "48765-2" })
        #expect(allergies["emptyReason"] != nil && allergies["entry"] == nil)
        #expect(try Self.ipsCheck(summary.data, in: dir)["pass"] as? Bool == true)
    }

    /// Devices: a provider's DeviceUseStatement names its Device; a Device no statement names
    /// gets one; the same device from a second provider is listed once.
    @Test func devicesAreListedThroughDeviceUseStatements() async throws {
        let pacemaker = #"{"resourceType":"Device","id":"d1","status":"active","udiCarrier":[{"deviceIdentifier":"00844588003288"}],"type":{"coding":[{"system":"http://snomed.info/sct","code":"14106009","display":"Cardiac pacemaker"}]},"patient":{"reference":"Patient/p1"}}"#
        let pump = #"{"resourceType":"Device","id":"d2","status":"inactive","type":{"text":"Insulin pump"},"manufactureDate":"2019-03-01T00:00:00Z","patient":{"reference":"Patient/p1"}}"#
        let use = #"{"resourceType":"DeviceUseStatement","id":"u1","status":"active","subject":{"reference":"Patient/p1"},"device":{"reference":"Device/d1"},"timingDateTime":"2018-05-02"}"#
        let patient = #"{"resourceType":"Patient","id":"p1","name":[{"family":"Example","given":["Robin"]}]}"#
        let clinic = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(patient)},{"resource":\#(pacemaker)},{"resource":\#(pump)},{"resource":\#(use)}]}"#
        let second = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(patient)},{"resource":\#(pacemaker)}]}"#
        let (dir, store) = try await Self.store(importing: [("clinic.json", Data(clinic.utf8), "clinic"), ("hospital.json", Data(second.utf8), "hospital")])
        let summary = try await PatientSummaryBuilder(store: store).build()
        #expect(summary.sections.first { $0.section == .devices }?.count == 2)
        let resources = Self.entries(summary)
        // Two devices, besides the Device that authors the document.
        #expect(resources.filter { $0.string("resourceType") == "Device" && $0["type"] != nil }.count == 2)
        let statements = resources.filter { $0.string("resourceType") == "DeviceUseStatement" }
        #expect(statements.count == 2 && Set(statements.compactMap { $0.string("status") }) == ["active", "completed"])
        let composition = try #require(resources.first)
        let section = try #require(composition.list("section").compactMap(\.objectValue).first { $0.string("title") == "Medical Devices" })
        let div = try #require(section["text"]?.objectValue?.string("div"))
        #expect(div.contains("Cardiac pacemaker") && div.contains("Insulin pump") && div.contains("2018-05-02"))
        #expect(try Self.ipsCheck(summary.data, in: dir)["pass"] as? Bool == true)
    }
}
