import CBOR
import FHIR

/// CBOR date-time tags (0: RFC 3339 text, 1: epoch seconds) as the harness's cbor2 5.x
/// decodes them, and the text its object hook makes of them
/// (`astimezone(utc).strftime("%Y-%m-%dT%H:%M:%SZ")`).
///
/// Only the parts that decide whether a payload validates are modelled: which contents cbor2
/// refuses, and the UTC text (the schema's patterns and lengths apply to it).
enum DCCDateTimeTag {
    /// A decoded date-time: UTC seconds since 1970 (whole seconds; the hook drops fractions).
    struct Moment: Equatable {
        let epochSeconds: Int64
    }

    /// Python `datetime`'s range, 0001-01-01T00:00:00 … 9999-12-31T23:59:59 UTC.
    static let minEpochSeconds: Int64 = daysFromCivil(year: 1, month: 1, day: 1) * 86_400
    static let maxEpochSeconds: Int64 = daysFromCivil(year: 9999, month: 12, day: 31) * 86_400 + 86_399

    /// The date-time cbor2 decodes a tag 0 or 1 item to; `nil` when cbor2 refuses it.
    /// A tag 0 moment may still lie outside Python's range in UTC (see ``hookText(_:)``).
    static func moment(tag: UInt64, content: CBORValue) -> Moment? {
        tag == 0 ? textMoment(content) : epochMoment(content)
    }

    /// The hook's text, or `nil` where `astimezone(utc)` overflows.
    static func hookText(_ moment: Moment) -> String? {
        guard moment.epochSeconds >= minEpochSeconds, moment.epochSeconds <= maxEpochSeconds else { return nil }
        let days = floorDiv(moment.epochSeconds, 86_400)
        let secondOfDay = moment.epochSeconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        // glibc's %Y does not pad years below 1000; the rest is zero-padded.
        return "\(year)-\(pad(month))-\(pad(day))T\(pad(secondOfDay / 3600))"
            + ":\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60))Z"
    }

    // MARK: Tag 0

    /// cbor2 first matches `^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6})\d*)?(?:Z|([+-]\d\d):(\d\d))$`,
    /// then reads the fields at fixed byte offsets and lets `datetime` check the ranges. Only
    /// ASCII text is accepted here: Python's `\d` takes other digits, but the byte offsets then
    /// go astray and cbor2 refuses nearly all such text.
    private static func textMoment(_ content: CBORValue) -> Moment? {
        guard case .text(let text) = content else { return nil }
        var bytes = Array(text.utf8)
        // `$` also matches before one final newline.
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        guard bytes.count >= 20, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in start..<(start + count) {
                let b = bytes[i]
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ i: Int, is c: Character) -> Bool { c.asciiValue == bytes[i] }
        guard let year = digits(0, 4), byte(4, is: "-"), let month = digits(5, 2), byte(7, is: "-"),
              let day = digits(8, 2), byte(10, is: "T"), let hour = digits(11, 2), byte(13, is: ":"),
              let minute = digits(14, 2), byte(16, is: ":"), let second = digits(17, 2) else { return nil }
        var i = 19
        if bytes[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > start, i < bytes.count else { return nil }
        }
        var offset: Int64 = 0
        if bytes[i] == UInt8(ascii: "Z") {
            guard i + 1 == bytes.count else { return nil }
        } else {
            guard bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-"), i + 6 == bytes.count,
                  let offsetHours = digits(i + 1, 2), byte(i + 3, is: ":"), let offsetMinutes = digits(i + 4, 2)
            else { return nil }
            offset = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[i] == UInt8(ascii: "-") ? -1 : 1)
            // Python's `timezone` takes offsets strictly inside ±24 h.
            guard abs(offset) < 86_400 else { return nil }
        }
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...daysInMonth(year: year, month: month)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        let local = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Moment(epochSeconds: local - offset)
    }

    // MARK: Tag 1

    /// `datetime.fromtimestamp(n, timezone.utc)` for any Python number (booleans included),
    /// rounding floats half-even to microseconds first.
    private static func epochMoment(_ content: CBORValue) -> Moment? {
        let seconds: Double
        switch SchemaInstance.of(content, inMap: false) {
        case .number(let d, _): seconds = d
        default:
            if case .bool(let b) = content { seconds = b ? 1 : 0 } else { return nil }
        }
        guard seconds.isFinite else { return nil }
        let micros = (seconds * 1_000_000).rounded(.toNearestOrEven)
        let whole = (micros / 1_000_000).rounded(.down)
        guard whole >= Double(minEpochSeconds), whole <= Double(maxEpochSeconds) else { return nil }
        return Moment(epochSeconds: Int64(whole))
    }

    // MARK: Calendar (proleptic Gregorian, as Python's)

    // Hinnant's algorithms, kept once in `FHIRDate` (Int is 64 bits on every platform we build for).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        Int64(FHIRDate.daysFromCivil(year: Int(year), month: Int(month), day: Int(day)))
    }

    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let d = FHIRDate.civil(fromDays: Int(days))
        return (Int64(d.year), Int64(d.month), Int64(d.day))
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
