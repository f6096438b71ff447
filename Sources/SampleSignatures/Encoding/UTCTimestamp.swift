import FHIR
import Foundation
import SwiftASN1

/// A UTC calendar date and time with millisecond precision, converted to and
/// from `Date` with integer arithmetic (no `Calendar`, no time zones).
struct UTCTimestamp: Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var millisecond: Int

    /// Milliseconds since 1970-01-01T00:00:00Z, rounded to the nearest millisecond.
    static func milliseconds(of date: Date) -> Int64? {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, abs(value) < 1e17 else { return nil }
        return Int64(value)
    }

    /// Breaks `date` down in UTC, rounded to the nearest millisecond.
    /// Returns `nil` outside the years 1…9999.
    init?(_ date: Date) {
        guard let total = Self.milliseconds(of: date) else { return nil }
        let millisecondsPerDay: Int64 = 86_400_000
        var days = total / millisecondsPerDay
        var rest = total % millisecondsPerDay
        if rest < 0 {
            rest += millisecondsPerDay
            days -= 1
        }
        let civil = FHIRDate.civil(fromDays: Int(days))
        let (year, month, day) = (civil.year, civil.month, civil.day)
        guard (1...9999).contains(year) else { return nil }
        self.year = Int(year)
        self.month = Int(month)
        self.day = Int(day)
        self.hour = Int(rest / 3_600_000)
        self.minute = Int(rest / 60_000 % 60)
        self.second = Int(rest / 1000 % 60)
        self.millisecond = Int(rest % 1000)
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    var date: Date {
        let days = Int64(FHIRDate.daysFromCivil(year: year, month: month, day: day))
        let milliseconds =
            days * 86_400_000 + Int64(hour) * 3_600_000 + Int64(minute) * 60_000 + Int64(second) * 1000
            + Int64(millisecond)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The DER `GeneralizedTime`: `YYYYMMDDHHMMSS[.fff]Z` with trailing fraction zeros removed.
    var generalizedTime: GeneralizedTime {
        var fraction = ArraySlice<UInt8>()
        if millisecond > 0 {
            var digits = [
                UInt8(ascii: "0") + UInt8(millisecond / 100),
                UInt8(ascii: "0") + UInt8(millisecond / 10 % 10),
                UInt8(ascii: "0") + UInt8(millisecond % 10),
            ]
            while digits.last == UInt8(ascii: "0") { digits.removeLast() }
            fraction = digits[...]
        }
        // Components come from a valid date, so the initializer cannot fail.
        return try! GeneralizedTime(
            year: year, month: month, day: day, hours: hour, minutes: minute, seconds: second,
            rawFractionalSeconds: fraction
        )
    }

    /// Reads a `GeneralizedTime`; `nil` when it has more than millisecond precision.
    init?(_ time: GeneralizedTime) {
        guard time.rawFractionalSeconds.count <= 3 else { return nil }
        self.init(truncating: time)
    }

    /// Reads a `GeneralizedTime`, dropping any precision beyond milliseconds.
    init(truncating time: GeneralizedTime) {
        let fraction = time.rawFractionalSeconds.prefix(3)
        var millisecond = 0
        var scale = 100
        for digit in fraction {
            millisecond += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        self.init(
            year: time.year, month: time.month, day: time.day, hour: time.hours, minute: time.minutes,
            second: time.seconds, millisecond: millisecond
        )
    }

    /// Reads a `UTCTime` (whole seconds).
    init(_ time: UTCTime) {
        self.init(
            year: time.year, month: time.month, day: time.day, hour: time.hours, minute: time.minutes,
            second: time.seconds, millisecond: 0
        )
    }
}
