import Foundation

/// A FHIR `date`, `dateTime` or `instant`, with the precision it was written in.
///
/// `2017` means the whole year, `2017-03` the whole month; a time without a zone is read as
/// UTC (FHIR requires a zone with a time, but real exports omit it).
public struct FHIRDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How much of the date was given.
    public enum Precision: Int, Sendable, Hashable, Comparable {
        case year, month, day, minute, second
        public static func < (a: Precision, b: Precision) -> Bool { a.rawValue < b.rawValue }
    }

    /// The text as written.
    public let text: String
    /// How much of the date was given.
    public let precision: Precision
    /// The year, four digits as written; every date has one.
    public let year: Int
    /// The month (1–12), or 1 when not given.
    public let month: Int
    /// The day (1–31), or 1 when not given.
    public let day: Int
    /// Hours, minutes, seconds (0 when not given).
    public let hour: Int, minute: Int, second: Int
    /// Fractional seconds in `0..<1` (at most 12 digits are read), 0 when not given.
    public let fraction: Double
    /// The zone offset from UTC in seconds, when given.
    public let timeZoneOffset: Int?

    /// Parses FHIR date text; `nil` when it is not a date.
    public init?(_ text: String) {
        var copy = text
        guard let parsed = copy.withUTF8({ FHIRDate.parse($0) }) else { return nil }
        self.text = text
        (precision, year, month, day, hour, minute, second, fraction, timeZoneOffset) = parsed
    }

    private typealias Parts = (Precision, Int, Int, Int, Int, Int, Int, Double, Int?)

    private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Parts? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let d = b[i + k] &- 0x30
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = digits(4) else { return nil }
        var mo = 1, d = 1, h = 0, mi = 0, s = 0
        var frac = 0.0
        var tz: Int? = nil
        var precision = Precision.year
        parse: do {
            guard expect(0x2D) else { break parse }  // -
            guard let m = digits(2), (1...12).contains(m) else { return nil }
            mo = m
            precision = .month
            guard expect(0x2D) else { break parse }
            guard let dd = digits(2), dd >= 1, dd <= FHIRDate.daysInMonth(year: y, month: m) else { return nil }
            d = dd
            precision = .day
            guard expect(0x54) || expect(0x20) else { break parse }  // T or space
            guard let hh = digits(2), hh < 24, expect(0x3A), let mm = digits(2), mm < 60 else { return nil }
            h = hh
            mi = mm
            precision = .minute
            if expect(0x3A) {
                guard let ss = digits(2), ss < 61 else { return nil }
                s = min(ss, 59)
                precision = .second
                if expect(0x2E) {  // .
                    var scale = 0.1
                    let start = i
                    // Any number of digits is read; past twelve they are below a Double's reach.
                    while i < b.count, b[i] &- 0x30 < 10 {
                        if i - start < 12 {
                            frac += Double(b[i] &- 0x30) * scale
                            scale /= 10
                        }
                        i += 1
                    }
                    guard i > start else { return nil }
                }
            }
            if expect(0x5A) {  // Z
                tz = 0
            } else if i < b.count, b[i] == 0x2B || b[i] == 0x2D {
                let sign = b[i] == 0x2D ? -1 : 1
                i += 1
                guard let th = digits(2), th <= 14 else { return nil }
                _ = expect(0x3A)
                guard let tm = digits(2), tm < 60 else { return nil }
                tz = sign * (th * 3600 + tm * 60)
            }
        }
        guard i == b.count else { return nil }
        return (precision, y, mo, d, h, mi, s, frac, tz)
    }

    /// The first instant the date covers (UTC when no zone is given).
    public var date: Date {
        let days = FHIRDate.daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction - Double(timeZoneOffset ?? 0)
        return Date(timeIntervalSince1970: seconds)
    }

    /// The span of time the date covers at its precision (a year, a month, a day, a minute or a second).
    public var interval: DateInterval {
        let start = date
        let end: Date
        switch precision {
        case .year: end = FHIRDate(yearStarting: year + 1).date
        case .month:
            end = month == 12 ? FHIRDate(yearStarting: year + 1).date
                : Date(timeIntervalSince1970: Double(FHIRDate.daysFromCivil(year: year, month: month + 1, day: 1) * 86_400))
        case .day: end = start.addingTimeInterval(86_400)
        case .minute: end = start.addingTimeInterval(60)
        case .second: end = start.addingTimeInterval(1)
        }
        return DateInterval(start: start, end: end)
    }

    private init(yearStarting year: Int) {
        self.init(String(format: "%04d", year))!
    }

    public var description: String { text }

    public static func < (a: FHIRDate, b: FHIRDate) -> Bool { a.date < b.date }

    public static func == (a: FHIRDate, b: FHIRDate) -> Bool { a.text == b.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian year, month and day of a day counted from 1970-01-01 (the
    /// inverse of ``daysFromCivil(year:month:day:)``).
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
