import ClinicalRecords
import Foundation
import HealthStoreCore
import HealthVocabulary
import Testing

/// Sample, verifiable-record and anchored queries, and type lists, as both front ends read them.
@Suite struct OtherQueryParsingTests {
    static func utc(_ text: String) -> Date { DateRuleTests.utc(text) }

    @Test func sampleQueriesReadEveryParameter() throws {
        let q = try QuantitySampleQuery(parameters: QueryParameters([
            ("type", "blood-glucose"), ("source", "meter"), ("from", "2024-05-01"), ("to", "2024-05-01"), ("addedTo", "2025"), ("limit", "3"),
            ("sort", "-added"),
        ]))
        #expect(q == QuantitySampleQuery(
            type: .bloodGlucose,
            predicate: .and([
                .source("meter"), .startDate(from: Self.utc("2024-05-01T00:00:00.000Z"), to: Self.utc("2024-05-02T00:00:00.000Z")),
                .addedDate(from: nil, to: Self.utc("2026-01-01T00:00:00.000Z")),
            ]),
            limit: 3, sort: SampleSort(.added, ascending: false)))
        #expect(try QuantitySampleQuery(parameters: QueryParameters()) == QuantitySampleQuery(type: nil))
    }

    @Test(arguments: [
        ("type", "glucose", ParameterError.notOneOf(.type, value: "glucose", choices: QuantityType.allCases.map(\.name))),
        ("from", "today", .notADate(.from, value: "today")),
        ("addedFrom", "0x1p4", .notADate(.addedFrom, value: "0x1p4")),
        ("limit", "1.5", .notACount(.limit, value: "1.5")),
        ("sort", "clinical", .notOneOf(.sort, value: "clinical", choices: ["start", "added", "-start", "-added"])),
    ])
    func badSampleParametersAreTypedErrors(name: String, value: String, error: ParameterError) {
        #expect(throws: error) { try QuantitySampleQuery(parameters: QueryParameters([(name, value)])) }
    }

    @Test func verifiableRecordQueriesKeepURIsWholeAndTheEndExclusive() throws {
        let uri = "https://smarthealth.cards#immunization"
        var p = QueryParameters()
        p[.recordTypes] = [uri, "", "https://example.org/a,b"]
        p.set(.relevantDateFrom, "2021")
        p.set(.relevantDateTo, "2021-06-01T00:00:00Z")
        let q = try VerifiableRecordQuery(parameters: p)
        #expect(q.recordTypes == [uri, "https://example.org/a,b"])
        let interval = try #require(q.relevantDate)
        #expect(interval.start == Self.utc("2021-01-01T00:00:00.000Z"))
        #expect(!interval.contains(Self.utc("2021-06-01T00:00:00.000Z")))
        #expect(interval.contains(Self.utc("2021-05-31T23:59:59.999Z")))
        #expect(try VerifiableRecordQuery(parameters: QueryParameters()) == VerifiableRecordQuery())
    }

    @Test func badVerifiableRecordParametersAreTypedErrors() {
        #expect(throws: ParameterError.missing(.recordTypes)) { try VerifiableRecordQuery(parameters: QueryParameters(), requireRecordTypes: true) }
        var p = QueryParameters()
        p.set(.relevantDateFrom, "later")
        #expect(throws: ParameterError.notADate(.relevantDateFrom, value: "later")) { try VerifiableRecordQuery(parameters: p) }
        p.set(.relevantDateFrom, "2022")
        p.set(.relevantDateTo, "2021")
        #expect(throws: ParameterError.emptyRange(from: .relevantDateFrom, fromValue: "2022", to: .relevantDateTo, toValue: "2021")) {
            try VerifiableRecordQuery(parameters: p)
        }
    }

    @Test func anchoredQueriesReadAnchorsByTheReadersCoding() throws {
        let q = try AnchoredQuery(parameters: QueryParameters([("type", "condition"), ("anchor", "42"), ("limit", "10")]), anchors: .store, limitCap: 5)
        #expect(q == AnchoredQuery(type: .condition, anchor: QueryAnchor(rawValue: 42), limit: 5))
        #expect(try AnchoredQuery(parameters: QueryParameters([("anchor", "")]), anchors: .store).anchor == nil)
        for bad in ["-3", "x", "4.5", "99999999999999999999"] {
            #expect(throws: ParameterError.notAnAnchor(.anchor, value: bad)) {
                try AnchoredQuery(parameters: QueryParameters([("anchor", bad)]), anchors: .store)
            }
        }
        #expect(throws: ParameterError.notACount(.limit, value: "-1")) {
            try AnchoredQuery(parameters: QueryParameters([("limit", "-1")]), anchors: .store)
        }
        let app = AnchorCoding(encode: { "t\($0.rawValue)" }, decode: { $0.hasPrefix("t") ? Int64($0.dropFirst()).map(QueryAnchor.init) : nil })
        #expect(try AnchoredQuery(parameters: QueryParameters([("anchor", "t7")]), anchors: app).anchor == QueryAnchor(rawValue: 7))
        #expect(throws: ParameterError.notAnAnchor(.anchor, value: "7")) { try AnchoredQuery(parameters: QueryParameters([("anchor", "7")]), anchors: app) }
        #expect(AnchorCoding.store.encode(QueryAnchor(rawValue: 120)) == "120")
    }

    @Test func typeListsAreRepeatedOrCommaSeparated() throws {
        let p = QueryParameters([("types", "condition, lab-result"), ("types", "condition"), ("types", "")])
        #expect(try p.clinicalTypes() == [.condition, .labResult])
        #expect(Set(try p.dataTypes()) == [.clinical(.condition), .clinical(.labResult)])
        #expect(try QueryParameters().clinicalTypes() == nil)
        #expect(throws: ParameterError.notOneOf(.types, value: "gossip", choices: ClinicalType.allCases.map(\.name))) {
            try QueryParameters([("types", "condition,gossip")]).clinicalTypes()
        }
        #expect(throws: ParameterError.notOneOf(.types, value: "gossip", choices: HealthDataType.allCases.map(\.name))) {
            try QueryParameters([("types", "gossip")]).dataTypes()
        }
    }
}
