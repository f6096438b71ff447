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
        for bad in ["", "4", "4.x.1", "4.0.1.2", "-4.0.1", "4..1"] {
            #expect(throws: FHIRError.invalidVersion(bad)) { try FHIRVersion(versionString: bad) }
        }
    }
}
