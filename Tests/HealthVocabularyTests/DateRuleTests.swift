import Foundation
import HealthVocabulary
import Testing

/// The one date rule: a date without a time covers its whole period, an instant is itself; as
/// an end, a period is included and an instant excluded.
@Suite struct DateRuleTests {
    static func utc(_ text: String) -> Date { try! Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) }

    @Test(arguments: [
        ("2024", "2024-01-01T00:00:00.000Z", "2025-01-01T00:00:00.000Z"),
        ("2024-02", "2024-02-01T00:00:00.000Z", "2024-03-01T00:00:00.000Z"),
        ("2024-12", "2024-12-01T00:00:00.000Z", "2025-01-01T00:00:00.000Z"),
        ("2024-05-01", "2024-05-01T00:00:00.000Z", "2024-05-02T00:00:00.000Z"),
    ])
    func aDateWithoutATimeCoversItsWholePeriod(text: String, start: String, end: String) throws {
        let bound = try #require(DateBound(text))
        #expect(bound.start == Self.utc(start))
        #expect(bound.end == Self.utc(end))
    }

    @Test(arguments: [
        ("2024-05-01T10:30:00Z", "2024-05-01T10:30:00.000Z"),
        ("2024-05-01T10:30:00.250Z", "2024-05-01T10:30:00.250Z"),
        ("2024-05-01T10:30Z", "2024-05-01T10:30:00.000Z"),
        ("2024-05-01T10:30:00", "2024-05-01T10:30:00.000Z"),
        ("2024-05-01T12:30:00+02:00", "2024-05-01T10:30:00.000Z"),
        ("1714559400", "2024-05-01T10:30:00.000Z"),
        ("1714559400.5", "2024-05-01T10:30:00.500Z"),
    ])
    func aDateWithATimeOrSecondsIsAnInstant(text: String, instant: String) throws {
        let bound = try #require(DateBound(text))
        #expect(bound.start == Self.utc(instant))
        #expect(bound.end == bound.start)
    }

    @Test(arguments: ["", "yesterday", "2024-13", "2024-02-30", "24-05-01", "0x10", "1e9", "nan", "inf", "-", ".", "2024-05-01T25:00Z", " 2024"])
    func otherTextIsNotADate(text: String) {
        #expect(DateBound(text) == nil)
    }

    @Test func aDateOnlyToIncludesTheDayAndAnInstantToExcludesItself() throws {
        var p = QueryParameters()
        p.set(.from, "2024-05-01")
        p.set(.to, "2024-05-01")
        let day = try #require(try DateRange.parse(from: .from, to: .to, in: p))
        #expect(day.from == Self.utc("2024-05-01T00:00:00.000Z") && day.to == Self.utc("2024-05-02T00:00:00.000Z"))

        p.set(.from, "2024-05-01T08:00:00Z")
        p.set(.to, "2024-05-01T12:00:00Z")
        let instants = try #require(try DateRange.parse(from: .from, to: .to, in: p))
        #expect(instants.from == Self.utc("2024-05-01T08:00:00.000Z") && instants.to == Self.utc("2024-05-01T12:00:00.000Z"))
    }

    @Test func eitherEndMayBeOpenAndNeitherIsNoRange() throws {
        var p = QueryParameters()
        #expect(try DateRange.parse(from: .from, to: .to, in: p) == nil)
        p.set(.to, "2020")
        #expect(try DateRange.parse(from: .from, to: .to, in: p) == DateRange(from: nil, to: Self.utc("2021-01-01T00:00:00.000Z")))
    }

    @Test(arguments: [("2021", "2020"), ("2024-05-01T12:00:00Z", "2024-05-01T12:00:00Z"), ("2024-05-02", "2024-05-01T23:59:59Z")])
    func aRangeThatCanHoldNothingIsAnError(from: String, to: String) {
        var p = QueryParameters()
        p.set(.addedFrom, from)
        p.set(.addedTo, to)
        #expect(throws: ParameterError.emptyRange(from: .addedFrom, fromValue: from, to: .addedTo, toValue: to)) {
            try DateRange.parse(from: .addedFrom, to: .addedTo, in: p)
        }
    }

    @Test func aBadDateNamesItsParameterAndValue() {
        var p = QueryParameters()
        p.set(.to, "next week")
        #expect(throws: ParameterError.notADate(.to, value: "next week")) { try DateRange.parse(from: .from, to: .to, in: p) }
        p[.to] = ["2020", "2021"]
        #expect(throws: ParameterError.repeated(.to)) { try DateRange.parse(from: .from, to: .to, in: p) }
    }

    @Test func aClosedIntervalKeepsTheEndExclusive() throws {
        let end = Self.utc("2024-05-02T00:00:00.000Z")
        let interval = try #require(DateRange(from: nil, to: end)).closedInterval
        #expect(interval.end < end)
        #expect(interval.end.timeIntervalSince1970 < end.timeIntervalSince1970)
        #expect(!interval.contains(end))
        #expect(interval.contains(Date(timeIntervalSince1970: end.timeIntervalSince1970 - 0.001)))
        #expect(interval.start == .distantPast)
        #expect(try #require(DateRange(from: end, to: nil)).closedInterval.end == .distantFuture)
        for seconds in [0, -1e9, 1_600_000_000.25, 4e9] {
            let date = Date(timeIntervalSince1970: seconds)
            let last = try #require(DateRange(from: nil, to: date)).closedInterval.end
            #expect(last < date && last.timeIntervalSince1970 < date.timeIntervalSince1970)
        }
    }
}
