import Foundation

/// How every date in the JSON of both front ends is written: an ISO 8601 instant in UTC with
/// milliseconds (`2024-05-01T10:30:00.000Z`) — one fixed width, so the text sorts as the
/// instants do, and milliseconds, the precision samples are stored in.
public enum InstantText {
    /// The text of an instant.
    public static func string(_ d: Date) -> String {
        // The formatter truncates to milliseconds; a time stored as 0.12299… s must print as .123,
        // so round to the millisecond first.
        let rounded = Date(timeIntervalSince1970: (d.timeIntervalSince1970 * 1000).rounded() / 1000)
        return rounded.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
