import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Testing

/// Every parameter of a record query, and every bad value, as both front ends read them.
@Suite struct RecordQueryParsingTests {
    static func parameters(_ pairs: [(String, String)]) -> QueryParameters { QueryParameters(pairs) }
    static func utc(_ text: String) -> Date { DateRuleTests.utc(text) }

    @Test func noParametersAskForEverythingInTheOrderAdded() throws {
        #expect(try RecordQuery(parameters: QueryParameters()) == RecordQuery(type: nil))
        #expect(try RecordQuery(parameters: QueryParameters(), limitCap: 1000) == RecordQuery(type: nil, limit: 1000))
    }

    @Test func everyParameterIsRead() throws {
        let q = try RecordQuery(parameters: Self.parameters([
            ("type", "lab-result"), ("resourceType", "Observation"), ("source", "clinic/north"), ("from", "2020"), ("to", "2020-03-01T12:00:00Z"),
            ("addedFrom", "1700000000"), ("addedTo", "2024-05"), ("limit", "7"), ("sort", "-clinical"), ("unrelated", "ignored"),
        ]))
        #expect(q.type == .labResult)
        #expect(q.limit == 7)
        #expect(q.sort == RecordSort(.clinical, ascending: false))
        #expect(q.predicate == .and([
            .fhirResourceType(FHIRResourceType("Observation")), .source("clinic/north"),
            .clinicalDate(from: Self.utc("2020-01-01T00:00:00.000Z"), to: Self.utc("2020-03-01T12:00:00.000Z")),
            .addedDate(from: Date(timeIntervalSince1970: 1_700_000_000), to: Self.utc("2024-06-01T00:00:00.000Z")),
        ]))
    }

    @Test(arguments: [("added", RecordSort(.added)), ("clinical", RecordSort(.clinical)), ("-added", RecordSort(.added, ascending: false))])
    func sortKeysAndDirections(text: String, sort: RecordSort) throws {
        #expect(try RecordQuery(parameters: Self.parameters([("sort", text)])).sort == sort)
    }

    @Test func healthKitIdentifiersNameTypesToo() throws {
        #expect(try RecordQuery(parameters: Self.parameters([("type", ClinicalType.labResult.identifier)])).type == .labResult)
    }

    @Test func aLimitIsCutToTheCapAndAnEmptySourceAsksForAnySource() throws {
        #expect(try RecordQuery(parameters: Self.parameters([("limit", "5000")]), limitCap: 1000).limit == 1000)
        #expect(try RecordQuery(parameters: Self.parameters([("limit", "0")])).limit == 0)
        #expect(try RecordQuery(parameters: Self.parameters([("source", "")])).predicate == nil)
    }

    @Test(arguments: [
        ("type", "nonsense", ParameterError.notOneOf(.type, value: "nonsense", choices: ClinicalType.allCases.map(\.name))),
        ("resourceType", "not a type", .notAResourceType(.resourceType, value: "not a type")),
        ("from", "yesterday", .notADate(.from, value: "yesterday")),
        ("to", "soon", .notADate(.to, value: "soon")),
        ("addedFrom", "x", .notADate(.addedFrom, value: "x")),
        ("addedTo", "2024-13", .notADate(.addedTo, value: "2024-13")),
        ("limit", "-1", .notACount(.limit, value: "-1")),
        ("limit", "ten", .notACount(.limit, value: "ten")),
        ("sort", "name", .notOneOf(.sort, value: "name", choices: ["added", "clinical", "-added", "-clinical"])),
    ])
    func everyBadValueIsATypedErrorNamingItsParameter(name: String, value: String, error: ParameterError) {
        #expect(throws: error) { try RecordQuery(parameters: Self.parameters([(name, value)])) }
        #expect(error.parameter.rawValue == name)
        #expect(error.message().hasPrefix("\(name): \"\(value)\""))
    }

    @Test func anEmptyRangeAndARepeatedParameterAreErrors() {
        #expect(throws: ParameterError.emptyRange(from: .from, fromValue: "2021", to: .to, toValue: "2020")) {
            try RecordQuery(parameters: Self.parameters([("from", "2021"), ("to", "2020")]))
        }
        #expect(throws: ParameterError.repeated(.type)) {
            try RecordQuery(parameters: Self.parameters([("type", "condition"), ("type", "allergy")]))
        }
    }

    @Test func messagesNameParametersAsTheFrontEndSpellsThem() {
        let error = ParameterError.notAResourceType(.resourceType, value: String(repeating: "x", count: 100))
        let message = error.message { "--" + $0.rawValue.lowercased() }
        #expect(message.hasPrefix("--resourcetype: \"" + String(repeating: "x", count: 63) + "…\""))
    }
}
