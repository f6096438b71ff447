import Foundation

/// How far back an app may read a type: all recorded data, or a window of days ending now and
/// moving with time (HealthKit's "the past 30 days and future data", with more choices).
///
/// A record's date for the window is its clinical date, or, for a record without one, the date
/// it was added; a sample's is its start date. Future data is governed by the grant's
/// ``NewDataPolicy`` as usual; the window only takes away the past.
public struct HistoryWindow: Sendable, Hashable, CustomStringConvertible {
    /// The window's length in days; `nil` for all recorded data.
    public let days: Int?

    /// Every record, however old.
    public static let all = HistoryWindow(uncheckedDays: nil)

    /// The choices the person's pages offer, shortest first, then ``all``.
    public static let choices: [HistoryWindow] = [.days(30)!, .days(90)!, .days(365)!, .all]

    /// The longest window that is not ``all``: a century.
    public static let maximumDays = 36_500

    private init(uncheckedDays: Int?) { days = uncheckedDays }

    /// A window of `days` days ending now; `nil` outside 1…``maximumDays``.
    public static func days(_ days: Int) -> HistoryWindow? {
        (1...maximumDays).contains(days) ? HistoryWindow(uncheckedDays: days) : nil
    }

    /// Reads `all`, `<n>d` (days) or `<n>y` (years of 365 days), as the CLI and forms write them;
    /// `nil` for anything else.
    public init?(text: String) {
        let t = text.lowercased()
        if t == "all" {
            self = .all
            return
        }
        guard let unit = t.last, unit == "d" || unit == "y", t.count > 1, t.count <= 6,
            t.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(t.dropLast()),
            let window = Self.days(unit == "y" ? n * 365 : n)
        else { return nil }
        self = window
    }

    /// `all`, `<n>y` for whole years, else `<n>d`: what ``init(text:)`` reads back.
    public var text: String {
        guard let days else { return "all" }
        return days % 365 == 0 ? "\(days / 365)y" : "\(days)d"
    }

    public var description: String { text }

    /// For people: "all recorded data", "the past 30 days", "the past year"…
    public var phrase: String {
        guard let days else { return "all recorded data" }
        if days % 365 == 0 { return days == 365 ? "the past year" : "the past \(days / 365) years" }
        return days == 1 ? "the past day" : "the past \(days) days"
    }

    /// The earliest date visible at `now`; `nil` for ``all``. Rounded up to the whole second,
    /// so a window never opens more than it says and answers made in the same second match.
    public func earliestDate(at now: Date) -> Date? {
        guard let days else { return nil }
        return Date(timeIntervalSince1970: (now.timeIntervalSince1970 - Double(days) * 86_400).rounded(.up))
    }
}
