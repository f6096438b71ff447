import FHIR
import Foundation
import Testing

@Suite struct FHIRDateTests {
    @Test func readsPartialPrecision() throws {
        let year = try #require(FHIRDate("2017"))
        #expect(year.precision == .year)
        #expect(year.interval.start == Date(timeIntervalSince1970: 1_483_228_800))
        #expect(year.interval.end == Date(timeIntervalSince1970: 1_514_764_800))
        let month = try #require(FHIRDate("2017-03"))
        #expect(month.precision == .month)
        #expect(month.interval.duration == 31 * 86_400)
        let december = try #require(FHIRDate("2016-12"))
        #expect(december.interval.end == FHIRDate("2017")!.date)
        #expect(FHIRDate("2016-02-29")?.precision == .day)
    }

    @Test func readsDateTimesWithZones() throws {
        let d = try #require(FHIRDate("2013-04-02T09:30:10.125+01:00"))
        #expect(d.precision == .second)
        #expect(d.timeZoneOffset == 3600)
        #expect(abs(d.date.timeIntervalSince1970 - 1_364_891_410.125) < 1e-6)
        #expect(FHIRDate("2013-04-02T09:30:10Z")?.date == Date(timeIntervalSince1970: 1_364_895_010))
        // Real exports omit the zone; read as UTC.
        #expect(FHIRDate("2013-04-02T09:30:10")?.date == Date(timeIntervalSince1970: 1_364_895_010))
        #expect(FHIRDate("2013-04-02T09:30Z")?.precision == .minute)
    }

    @Test(arguments: ["", "17", "2017-13", "2017-02-30", "2017-1-01", "2017-01-01T25:00:00Z", "2017-01-01T10:00:00+15:00", "2017-01-01T10:00:00Zjunk", "abcd"])
    func rejectsInvalidDates(_ text: String) {
        #expect(FHIRDate(text) == nil)
    }

    @Test func ordersByInstant() {
        #expect(FHIRDate("2017")! < FHIRDate("2017-01-01T00:00:01Z")!)
        #expect(FHIRDate("2017-01-01T01:00:00+02:00")! < FHIRDate("2017-01-01T00:00:00Z")!)
    }
}

@Suite struct FHIRVersionTests {
    @Test func parsesVersionsAndReleases() throws {
        #expect(try FHIRVersion(versionString: "4.0.1").fhirRelease == .r4)
        #expect(try FHIRVersion(versionString: "1.0.2").fhirRelease == .dstu2)
        #expect(try FHIRVersion(versionString: "3.0.1").fhirRelease == .unknown)
        #expect(try FHIRVersion(versionString: "4.0").stringRepresentation == "4.0.0")
        #expect(FHIRVersion.primaryR4.stringRepresentation == "4.0.1")
        #expect(FHIRVersion.primaryDSTU2.stringRepresentation == "1.0.2")
        #expect(try FHIRVersion(versionString: "10.20.30").stringRepresentation == "10.20.30")
        for bad in ["", "4", "4.x.1", "4.0.1.2", "-4.0.1", "4..1", "4.0.", ".4.0", "1234567.0", "4.0.1 ", "４.0.1"] {
            #expect(throws: FHIRError.invalidVersion(bad)) { try FHIRVersion(versionString: bad) }
        }
    }
}

@Suite struct CivilDayTests {
    @Test func civilDaysRoundTripAcrossCenturiesAndLeapDays() {
        // Every day from 1600 to 2400 (leap centuries and not), and far out on both sides.
        var wrong: [Int] = []
        var previous = FHIRDate.civil(fromDays: -135_141)
        for days in stride(from: -135_140, through: 157_054, by: 1) {
            let d = FHIRDate.civil(fromDays: days)
            // The next day of the one before: the same month one day on, or the first of the next.
            let next = d.day == previous.day + 1 && d.month == previous.month && d.year == previous.year
                || d.day == 1 && (d.month == previous.month % 12 + 1) && d.year == previous.year + (previous.month == 12 ? 1 : 0)
            if FHIRDate.daysFromCivil(year: d.year, month: d.month, day: d.day) != days || !next { wrong.append(days) }
            previous = d
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(FHIRDate.civil(fromDays: -135_140) == (1600, 1, 1) && FHIRDate.civil(fromDays: 157_054) == (2400, 1, 1))
        #expect(FHIRDate.civil(fromDays: 0) == (1970, 1, 1))
        #expect(FHIRDate.civil(fromDays: -1) == (1969, 12, 31))
        #expect(FHIRDate.civil(fromDays: 11_016) == (2000, 2, 29))
        #expect(FHIRDate.civil(fromDays: 47_541) == (2100, 3, 1))
    }
}
