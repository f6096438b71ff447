import Foundation

/// How every date in the JSON of both front ends is written: an ISO 8601 instant in UTC with
/// milliseconds (`2024-05-01T10:30:00.000Z`) — one fixed width, so the text sorts as the
/// instants do, and milliseconds, the precision samples are stored in.
public enum InstantText {
    /// The text of an instant.
    public static func string(_ d: Date) -> String {
        // The formatter truncates fractions (and a Date counts from 2001, so .123 may be held as
        // .12299…): round to the millisecond ourselves and write whole seconds with it.
        let milliseconds = (d.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e17 else {
            return d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
        }
        let whole = Int64(milliseconds)
        let seconds = whole >= 0 ? whole / 1000 : (whole - 999) / 1000
        let fraction = whole - seconds * 1000
        let text = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        let digits = String(fraction)
        return String(text.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
