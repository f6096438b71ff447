import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing

@testable import HealthServer

/// The pieces that turn stored bytes into served ones, on their own: the splice writer, the
/// reference rewriter, the Patient merge, token and date parameters, and page tokens.
@Suite struct FHIRServingTests {
    static func write(_ json: String, rewrite: @escaping (String) -> String? = { _ in nil }) throws -> String {
        String(decoding: try ServedResourceWriter.write(Data(json.utf8), id: "ID", lastUpdated: "T", rewrite: rewrite), as: UTF8.self)
    }

    @Test func theWriterSplicesIdMetaAndReferencesAndKeepsEveryOtherByte() throws {
        let stored = #"{ "resourceType" : "Observation", "id":"o1", "meta":{"versionId":"3","lastUpdated":"2020-01-01T00:00:00Z"}, "valueQuantity":{"value":5.40e0}, "subject":{"reference":"Patient/p1","display":"P"}, "note":[{"text":"a \"reference\": here"}] }"#
        let served = try Self.write(stored) { $0 == "Patient/p1" ? "Patient/person-x" : nil }
        #expect(served == #"{ "resourceType" : "Observation", "id":"ID", "meta":{"versionId":"3","lastUpdated":"T"}, "valueQuantity":{"value":5.40e0}, "subject":{"reference":"Patient/person-x","display":"P"}, "note":[{"text":"a \"reference\": here"}] }"#)
        // A resource without meta gets one after its id; an empty meta gets its member; one without an id gets both.
        #expect(try Self.write(#"{"resourceType":"Patient","id":"p","active":true}"#) == #"{"resourceType":"Patient","id":"ID","meta":{"lastUpdated":"T"},"active":true}"#)
        #expect(try Self.write(#"{"resourceType":"Patient","meta":{},"id":"p"}"#) == #"{"resourceType":"Patient","meta":{"lastUpdated":"T"},"id":"ID"}"#)
        #expect(try Self.write(#"{"resourceType":"Basic","code":{}}"#) == #"{"resourceType":"Basic","id":"ID","meta":{"lastUpdated":"T"},"code":{}}"#)
        // References anywhere (extensions, arrays, contained) are offered; escapes are written back escaped.
        let nested = try Self.write(##"{"resourceType":"X","id":"x","extension":[{"valueReference":{"reference":"Encounter/e1"}}],"contained":[{"resourceType":"Y","id":"c","subject":{"reference":"#c"}}]}"##) {
            $0 == "Encounter/e1" ? "Encounter/\"q\"" : nil
        }
        #expect(nested.contains(#"{"reference":"Encounter/\"q\""}"#) && nested.contains(##""reference":"#c""##) && nested.contains(#""id":"c""#))
        #expect(throws: (any Error).self) { try Self.write("[1]") }
    }

    static func withContained(_ json: String, keep: Set<String>) throws -> String {
        String(decoding: try ServedResourceWriter.write(
            Data(json.utf8), id: "ID", lastUpdated: "T", rewrite: { $0 == "Patient/p" ? "Patient/ME" : nil },
            keepContained: { keep.contains($0.string("id") ?? "") }), as: UTF8.self)
    }

    @Test func containedResourcesLeftOutTakeTheirCommasAndReferencesWithThem() throws {
        let masked = ServedResourceWriter.masked
        let three = ##"{"resourceType":"X","id":"x","contained":[{"resourceType":"A","id":"a","subject":{"reference":"Patient/p"}}, {"resourceType":"B","id":"b"},{"resourceType":"C","id":"c","r":{"reference":"#b"}}],"one":{"reference":"#a","display":"secret a"},"two":[{"reference":"#b"},{"reference":"#c"}],"s":{"reference":"Patient/p"}}"##
        var results: [String] = []
        for keep in [["a", "b", "c"], ["b", "c"], ["a", "c"], ["a", "b"], ["c"], ["a"], []] as [Set<String>] {
            let served = try Self.withContained(three, keep: keep)
            results.append(served)
            // Always valid JSON, with exactly the kept resources, in order.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(served.utf8)) as? [String: Any])
            let ids = (json["contained"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(ids == ["a", "b", "c"].filter(keep.contains), "\(keep): \(served)")
            #expect(json["id"] as? String == "ID" && (json["meta"] as? [String: Any])?["lastUpdated"] as? String == "T")
            #expect((json["s"] as? [String: Any])?["reference"] as? String == "Patient/ME")
            for (member, id) in [("one", "a")] where !keep.contains(id) {
                #expect(!served.contains("secret a") && (json[member] as? [String: Any])?["extension"] != nil)
            }
            #expect(served.contains(##"{"reference":"#b"}"##) == keep.contains("b"))
        }
        #expect(results[0] == three.replacingOccurrences(of: #""id":"x""#, with: #""id":"ID","meta":{"lastUpdated":"T"}"#).replacingOccurrences(of: "Patient/p\"", with: "Patient/ME\""))
        #expect(results[5].contains(##""contained":[{"resourceType":"A","id":"a","subject":{"reference":"Patient/ME"}}],"one":{"reference":"#a""##))
        #expect(results[6].contains(#"{"resourceType":"X","id":"ID","meta":{"lastUpdated":"T"},"one":\#(masked)"#))
        // A contained member that opens the object, in a resource without an id.
        let first = try Self.withContained(##"{"contained":[{"resourceType":"A","id":"a"}],"resourceType":"X","r":{"reference":"#a"}}"##, keep: [])
        #expect(first == #"{"resourceType":"X","id":"ID","meta":{"lastUpdated":"T"},"r":\#(masked)}"#)
    }

    @Test func referencesToTheProvidersPatientBecomeThePerson() {
        let r = ReferenceRewriter(personID: "person-1", sourcePatients: ["a": ["u-1", "p9"]]) { source, type, id in "\(source).\(type.rawValue).\(id)" }
        #expect(r.rewrite("Patient/p9", source: "a") == "Patient/person-1")
        #expect(r.rewrite("https://ehr.example/fhir/Patient/p9/_history/2", source: "a") == "Patient/person-1")
        // Only a Patient the same source holds is the person: another one is left as named.
        #expect(r.rewrite("Patient/p9", source: "b") == nil && r.rewrite("Patient/p2", source: "a") == nil)
        #expect(r.rewrite("urn:uuid:u-1", source: "a") == "Patient/person-1")
        #expect(r.rewrite("urn:uuid:u-1", source: "b") == nil)
        #expect(r.rewrite("urn:uuid:enc-1", source: "a") == nil)
        #expect(r.rewrite("Encounter/e1", source: "a") == "Encounter/a.Encounter.e1")
        #expect(r.rewrite("Encounter/e1/_history/4", source: "a") == "Encounter/a.Encounter.e1")
        #expect(r.rewrite("https://ehr.example/fhir/Encounter/e1", source: "a") == nil)
        #expect(r.rewrite("Nonsense/e1", source: "a") == nil)
        #expect(r.rewrite("#contained", source: "a") == nil)
        #expect(r.rewrite("Encounter/bad id", source: "a") == nil)
    }

    @Test func patientsMergeListsWithoutRepeatsAndTakeTheNewestSingleValues() throws {
        func object(_ s: String) throws -> JSONObject { try JSONReader().read(Data(s.utf8)).objectValue! }
        let older = try object(#"{"resourceType":"Patient","id":"a","text":{"div":"x"},"identifier":[{"system":"s","value":"1"}],"name":[{"family":"Roe","given":["Jo"]}],"gender":"unknown","extension":[{"url":"race","valueString":"old"}]}"#)
        let newer = try object(#"{"resourceType":"Patient","id":"b","identifier":[{"value":"1","system":"s","type":{"text":"MRN"}},{"system":"t","value":"2"}],"name":[{"given":["Jo"],"family":"Roe"}],"gender":"female","link":[{"other":{"reference":"Patient/a"}}],"extension":[{"url":"race","valueString":"new"}]}"#)
        let merged = PatientMerger.merge([older, newer], personID: "person-1", lastUpdated: "T")
        #expect(JSONWriter.minifiedString(.object(merged)) == #"{"resourceType":"Patient","id":"person-1","meta":{"lastUpdated":"T"},"identifier":[{"system":"s","value":"1"},{"system":"t","value":"2"}],"name":[{"family":"Roe","given":["Jo"]}],"gender":"female","extension":[{"url":"race","valueString":"new"}]}"#)
    }

    @Test func tokensParseAndMatchCodingsIdentifiersAndCodes() throws {
        let values = try FHIRToken.values(name: "code", value: #"http://loinc.org|1,|2,3,s|,a\,b"#)
        #expect(values == [
            FHIRToken(system: "http://loinc.org", code: "1"), FHIRToken(system: "", code: "2"), FHIRToken(system: nil, code: "3"),
            FHIRToken(system: "s", code: nil), FHIRToken(system: nil, code: "a,b"),
        ])
        for bad in ["", "a|b|c", "|", "x,"] { #expect(throws: FHIRRequestError.self) { try FHIRToken.values(name: "code", value: bad) } }
        let concept = try JSONReader().read(Data(#"{"coding":[{"system":"http://loinc.org","code":"1"},{"code":"2"}]}"#.utf8))
        #expect(values[0].matches(concept) && values[1].matches(concept) && !values[2].matches(concept))
        #expect(FHIRToken(system: "http://loinc.org", code: nil).matches(concept) && !values[3].matches(concept))
        let identifier = try JSONReader().read(Data(#"[{"system":"s","value":"9"}]"#.utf8))
        #expect(FHIRToken(system: "s", code: "9").matches(identifier) && !FHIRToken(system: "t", code: "9").matches(identifier))
        #expect(FHIRToken(system: "http://hl7.org/fhir/observation-status", code: "final").matches(.string("final")))
    }

    @Test func datePrefixesBecomeSpanConditions() throws {
        let may = FHIRDate("2024-05")!.interval
        #expect(try FHIRDateParameter.conditions(name: "date", value: "2024-05") == [DateCondition(.startsAtOrAfter(may.start)), DateCondition(.endsAtOrBefore(may.end))])
        #expect(try FHIRDateParameter.conditions(name: "date", value: "ge2024-05") == [DateCondition(anyOf: [.startsAtOrAfter(may.start), .endsAfter(may.end)])])
        #expect(try FHIRDateParameter.conditions(name: "date", value: "eb2024-05") == [DateCondition(.endsAtOrBefore(may.start))])
        let instant = try FHIRDateParameter.conditions(name: "date", value: "eq2024-05-01T10:00:00.250Z")
        #expect(instant == [DateCondition(.startsAtOrAfter(FHIRDate("2024-05-01T10:00:00.250Z")!.date)), DateCondition(.endsAtOrBefore(FHIRDate("2024-05-01T10:00:00.250Z")!.date.addingTimeInterval(0.001)))])
        #expect(FHIRDateParameter.holds(try FHIRDateParameter.conditions(name: "birthdate", value: "1980"), start: FHIRDate("1980-05-06")!.date, end: FHIRDate("1980-05-07")!.date))
        #expect(!FHIRDateParameter.holds(try FHIRDateParameter.conditions(name: "birthdate", value: "lt1980"), start: FHIRDate("1980-05-06")!.date, end: nil))
        #expect(throws: FHIRRequestError.invalidParameter(name: "date", value: "2024-05-32", reason: "is not a FHIR date (2024, 2024-05, 2024-05-01 or 2024-05-01T10:00:00Z)")) {
            try FHIRDateParameter.conditions(name: "date", value: "2024-05-32")
        }
        // A zone's `+` that arrived as a space (unescaped) is read as `+`, anywhere in the value.
        let plus = try FHIRDateParameter.conditions(name: "date", value: "ge2024-05-01T10:00:00+02:00")
        #expect(try FHIRDateParameter.conditions(name: "date", value: "ge2024-05-01T10:00:00 02:00") == plus)
        #expect(plus == [DateCondition(anyOf: [.startsAtOrAfter(FHIRDate("2024-05-01T08:00:00Z")!.date), .endsAfter(FHIRDate("2024-05-01T08:00:01Z")!.date)])])
        #expect(throws: FHIRRequestError.self) { try FHIRDateParameter.conditions(name: "date", value: "ge2024-05-01 T10:00:00Z") }
        for several in ["ge2024,le2025", "2024-05,", ",2024"] {
            #expect(throws: FHIRRequestError.invalidParameter(name: "date", value: several, reason: "has several values; repeat the parameter instead (each one must hold)")) {
                try FHIRDateParameter.conditions(name: "date", value: several)
            }
        }
    }

    @Test func pageTokensOpenOnlyForTheirAppAndUnaltered() throws {
        let tokens = FHIRPageTokens(anchorSecret: Data(repeating: 1, count: 32))
        let state = FHIRPageState(
            search: FHIRSearchRequest(resourceType: "Observation", everything: false, parameters: [("category", "laboratory"), ("foo", "bar")]), snapshot: 42,
            offset: 20, total: 99)
        #expect(state.search.parameters == [FHIRSearchRequest.Parameter(name: "category", value: "laboratory")])
        let token = tokens.seal(state, appID: "a")
        #expect(try tokens.open(token, appID: "a") == state)
        // The same page for the same app is sealed once (an app polling a search gets the same
        // next link); another page or app gets another token.
        #expect(!token.contains("laboratory") && tokens.seal(state, appID: "a") == token)
        let later = FHIRPageState(search: state.search, snapshot: 42, offset: 40, total: 99)
        #expect(tokens.seal(later, appID: "a") != token && tokens.seal(state, appID: "b") != token)
        #expect(throws: FHIRRequestError.invalidPageToken) { try tokens.open(token, appID: "b") }
        #expect(throws: FHIRRequestError.invalidPageToken) { try FHIRPageTokens(anchorSecret: Data(repeating: 2, count: 32)).open(token, appID: "a") }
        // The JSON written by hand reads back through the decoder, escapes and all.
        let odd = FHIRPageState(
            search: FHIRSearchRequest(resourceType: "Patient", everything: true, parameters: [("_type", "Observation,\"Condition\"\\é\u{1}\n"), ("_count", "5")]),
            snapshot: Int64(Int32.max) * 4, offset: 0, total: 0)
        #expect(try tokens.open(tokens.seal(odd, appID: "a"), appID: "a") == odd)
    }

    @Test func searchsetBundlesAreTheJSONTheirPartsSay() throws {
        let resource = Data(#"{"resourceType":"Observation","id":"a","valueQuantity":{"value":5.40}}"#.utf8)
        let full = SearchsetBundle(
            total: 41, selfURL: "https://h.example/fhir/Observation?code=a\"b", nextURL: "https://h.example/fhir/Observation?_page=x",
            entries: [.init(fullUrl: "https://h.example/fhir/Observation/a", resource: resource, mode: "match"),
                      .init(fullUrl: "https://h.example/fhir/Patient/p", resource: Data(#"{"resourceType":"Patient","id":"p"}"#.utf8), mode: "include")])
        let text = String(decoding: full.bytes, as: UTF8.self)
        // The stored bytes are spliced in as they are (5.40 keeps its zero).
        #expect(text.contains(#""resource":{"resourceType":"Observation","id":"a","valueQuantity":{"value":5.40}}"#))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(full.bytes)) as? [String: Any])
        #expect(json["resourceType"] as? String == "Bundle" && json["type"] as? String == "searchset" && json["total"] as? Int == 41)
        let links = try #require(json["link"] as? [[String: String]])
        #expect(links == [["relation": "self", "url": "https://h.example/fhir/Observation?code=a\"b"], ["relation": "next", "url": "https://h.example/fhir/Observation?_page=x"]])
        let entries = try #require(json["entry"] as? [[String: Any]])
        #expect(entries.map { $0["fullUrl"] as? String } == ["https://h.example/fhir/Observation/a", "https://h.example/fhir/Patient/p"])
        #expect(entries.map { ($0["search"] as? [String: String])?["mode"] } == ["match", "include"])
        // An empty search: no `entry`, no `next`.
        let empty = try #require(try JSONSerialization.jsonObject(with: Data(SearchsetBundle(total: 0, selfURL: "s", nextURL: nil, entries: []).bytes)) as? [String: Any])
        #expect(empty["entry"] == nil && (empty["link"] as? [[String: String]])?.count == 1 && empty["total"] as? Int == 0)
    }

    @Test func selfLinksPercentEncodeAllButUnreservedBytes() {
        let request = FHIRSearchRequest(
            resourceType: "Observation", everything: false, parameters: [("code", "http://loinc.org|1234-5"), ("date", "ge2024-05-01T10:00:00+02:00"), ("category", "läb oratory&x=1")])
        #expect(request.queryString == "code=http://loinc.org%7C1234-5&date=ge2024-05-01T10:00:00%2B02:00&category=l%C3%A4b%20oratory%26x%3D1")
        #expect(FHIRSearchRequest.encode("a-._~:/,Z09") == "a-._~:/,Z09")
        #expect(FHIRSearchRequest.encode("") == "")
    }
}
