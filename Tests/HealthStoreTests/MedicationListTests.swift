import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport

/// The consolidated medication list on real people: every Synthea person of the corpus, sent by
/// two providers, and constructed cases for matching by ingredient and for what must stay apart.
@Suite struct MedicationListTests {
    /// What a person's file says, read without the library: each medication record's RxNorm codes.
    static func rxNormSets(_ data: Data) throws -> [[String]] {
        let bundle = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        var medications: [String: [String: Any]] = [:]
        for r in resources where r["resourceType"] as? String == "Medication" { medications[r["id"] as? String ?? ""] = r }
        func codes(_ concept: [String: Any]?) -> [String] {
            (concept?["coding"] as? [[String: Any]] ?? []).filter { $0["system"] as? String == CodeSystem.rxNorm }.compactMap { $0["code"] as? String }
        }
        return resources.filter { ["MedicationRequest", "MedicationStatement", "MedicationDispense", "MedicationOrder"].contains($0["resourceType"] as? String ?? "") }.map { r in
            if let concept = r["medicationCodeableConcept"] as? [String: Any] { return codes(concept) }
            let reference = (r["medicationReference"] as? [String: Any])?["reference"] as? String ?? ""
            return codes(medications[reference.split(separator: "/").last.map(String.init) ?? ""]?["code"] as? [String: Any])
        }
    }

    @Test func everySyntheaPersonFromTwoProvidersHasOneEntryPerMedication() async throws {
        let people = Corpus.files("data/fhir/synthea", extensions: ["json"])
        #expect(!people.isEmpty)
        var checked = 0
        for person in people {
            let data = try Data(contentsOf: person)
            let sets = try Self.rxNormSets(data)
            guard !sets.isEmpty else { continue }
            let dir = TemporaryDirectory()
            let store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
            for provider in ["clinic", "hospital"] {
                var options = RecordImporter.Options()
                options.source = RecordSource(identifier: provider)
                #expect(await RecordImporter(store: store, options: options).importPaths([person.path]).failed == 0)
            }
            let list = try await store.medicationList()
            let name = person.lastPathComponent
            // Every record is in exactly one entry.
            let listed = list.entries.flatMap(\.records)
            #expect(listed.count == sets.count * 2 && Set(listed).count == listed.count, "\(name)")
            // One entry per distinct RxNorm code set (Synthea codes each record once); the uncoded stay apart.
            let distinct = Set(sets.filter { !$0.isEmpty }.map { $0.sorted().joined(separator: "+") })
            let uncoded = sets.filter(\.isEmpty).count * 2
            #expect(list.entries.filter { !$0.rxNormCodes.isEmpty }.count == distinct.count, "\(name)")
            #expect(list.entries.filter(\.rxNormCodes.isEmpty).count == uncoded, "\(name)")
            for entry in list.entries where !entry.rxNormCodes.isEmpty {
                // Both providers are behind each coded entry, and no entry mixes two medications.
                #expect(entry.sources.map(\.identifier) == ["clinic", "hospital"], "\(name): \(entry.name)")
                #expect(distinct.contains(entry.rxNormCodes.joined(separator: "+")), "\(name): \(entry.rxNormCodes)")
            }
            checked += 1
        }
        #expect(checked > 0)
    }

    @Test func differentCodesWithTheSameIngredientAndStrengthAreOneMedication() async throws {
        func medication(_ id: String, code: String, ingredient: String, mg: String) -> String {
            #"{"resourceType":"Medication","id":"\#(id)","code":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"\#(code)","display":"Med \#(code)"}]},"form":{"text":"Tablet"},"ingredient":[{"itemCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"\#(ingredient)"}]},"strength":{"numerator":{"value":\#(mg),"unit":"mg"},"denominator":{"value":1,"unit":"TAB"}}}]}"#
        }
        func request(_ id: String, medication: String, status: String, date: String) -> String {
            #"{"resourceType":"MedicationRequest","id":"\#(id)","status":"\#(status)","intent":"order","medicationReference":{"reference":"Medication/\#(medication)"},"subject":{"reference":"Patient/p"},"authoredOn":"\#(date)"}"#
        }
        // A brand and a generic of one strength; the same ingredient at another strength; a name only, twice.
        let clinic = Make.bundle([
            medication("m1", code: "104894", ingredient: "6809", mg: "500"), request("r1", medication: "m1", status: "completed", date: "2019-01-01"),
            medication("m3", code: "861007", ingredient: "6809", mg: "1000"), request("r3", medication: "m3", status: "active", date: "2020-01-01"),
            #"{"resourceType":"MedicationStatement","id":"s1","status":"active","medicationCodeableConcept":{"text":"Vitamin D"},"subject":{"reference":"Patient/p"},"effectiveDateTime":"2021-01-01"}"#,
        ])
        let pharmacy = Make.bundle([
            medication("m2", code: "861004", ingredient: "6809", mg: "500"), request("r2", medication: "m2", status: "active", date: "2021-06-01"),
            // A dose given in hospital, coded as the brand: the same medication.
            #"{"resourceType":"MedicationAdministration","id":"a1","status":"completed","medicationCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"104894"}]},"subject":{"reference":"Patient/p"},"effectiveDateTime":"2021-03-01T08:00:00Z"}"#,
            #"{"resourceType":"MedicationStatement","id":"s2","status":"active","medicationCodeableConcept":{"text":"Vitamin D"},"subject":{"reference":"Patient/p"},"effectiveDateTime":"2021-02-01"}"#,
        ])
        let dir = TemporaryDirectory()
        let store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        for (name, text) in [("clinic", clinic), ("pharmacy", pharmacy)] {
            var options = RecordImporter.Options()
            options.source = RecordSource(identifier: name)
            #expect(await RecordImporter(store: store, options: options).importPaths([try dir.write("\(name).json", text)]).failed == 0)
        }
        let list = try await store.medicationList()
        let metformin500 = try #require(list.entries.first { $0.rxNormCodes == ["104894", "861004"] })
        #expect(metformin500.sources.map(\.identifier) == ["clinic", "pharmacy"] && metformin500.records.count == 3)
        #expect(metformin500.records.contains { $0.resourceType.rawValue == "MedicationAdministration" })
        #expect(metformin500.status == .active && metformin500.firstDate?.text == "2019-01-01" && metformin500.latestDate?.text == "2021-06-01")
        #expect(metformin500.form == "Tablet")
        // Another strength is another medication; names alone never merge.
        #expect(list.entries.contains { $0.rxNormCodes == ["861007"] })
        #expect(list.entries.filter { $0.name == "Vitamin D" }.count == 2)
        #expect(list.entries.count == 4)
    }

    /// The HL7 R4 examples' medication records, each file its own source: every record is in one
    /// entry; no two entries share an RxNorm code (they would be one medication); and each record
    /// an entry joins shares a code, or its coded ingredients and strengths, with another of its
    /// records (read from the records' own JSON, contained Medications resolved, without the library).
    @Test func theR4ExamplesMatchOnlyByCode() async throws {
        let files = Corpus.files("data/fhir/r4-examples", extensions: ["json"]).filter { $0.lastPathComponent.lowercased().hasPrefix("medication") }
        #expect(!files.isEmpty)
        let dir = TemporaryDirectory()
        let store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        _ = await RecordImporter(store: store).importPaths(files.map(\.path))
        let records = try await store.records(RecordQuery(type: .medication))
        #expect(!records.isEmpty)
        let list = try await store.medicationList()
        let listed = list.entries.flatMap(\.records)
        #expect(listed.count == records.count && Set(listed) == Set(records.map(\.identity)))

        func codes(_ record: ClinicalRecord) throws -> Set<String> {
            let o = try #require(try JSONSerialization.jsonObject(with: record.fhirResource.data) as? [String: Any])
            func rx(_ concept: Any?) -> [String] {
                ((concept as? [String: Any])?["coding"] as? [[String: Any]] ?? []).filter { $0["system"] as? String == CodeSystem.rxNorm }.compactMap { $0["code"] as? String }
            }
            if let concept = o["medicationCodeableConcept"] { return Set(rx(concept)) }
            let reference = ((o["medicationReference"] as? [String: Any])?["reference"] as? String) ?? ""
            guard reference.hasPrefix("#") else { return [] }
            let contained = (o["contained"] as? [[String: Any]] ?? []).first { $0["id"] as? String == String(reference.dropFirst()) }
            var keys = Set(rx(contained?["code"]))
            // Coded ingredients with their strengths: what lets different codes be one medication.
            let ingredients = contained?["ingredient"] as? [[String: Any]] ?? []
            let parts = ingredients.map { i -> String? in
                guard let code = rx(i["itemCodeableConcept"]).first else { return nil }
                let numerator = ((i["strength"] as? [String: Any])?["numerator"] as? [String: Any])?["value"].map { "\($0)" } ?? ""
                return code + "@" + numerator
            }
            if !parts.isEmpty, !parts.contains(where: { $0 == nil }) { keys.insert("in:" + parts.compactMap { $0 }.sorted().joined(separator: ";")) }
            return keys
        }
        let byIdentity = Dictionary(uniqueKeysWithValues: records.map { ($0.identity, $0) })
        var owner: [String: String] = [:]
        var joined = 0
        for entry in list.entries {
            let sets = try entry.records.map { try codes(try #require(byIdentity[$0])) }
            for code in sets.reduce(Set<String>(), { $0.union($1) }) where !code.hasPrefix("in:") {
                #expect(owner[code] == nil, "RxNorm \(code) is in two entries")
                owner[code] = entry.id
            }
            guard sets.count > 1 else { continue }
            joined += 1
            for (i, set) in sets.enumerated() {
                let others = sets.enumerated().filter { $0.offset != i }.reduce(Set<String>()) { $0.union($1.element) }
                #expect(!set.isDisjoint(with: others), "\(entry.name): a record with \(set) joined records with \(others): \(entry.records)")
            }
        }
        #expect(joined > 0, "no two examples were the same medication")
    }
}
