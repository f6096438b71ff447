import FHIR
import Foundation

/// A date a user gave as one end of a range, read by the one rule both front ends follow.
///
/// **The rule.** A date without a time of day — `2024`, `2024-05`, `2024-05-01` — stands for
/// the whole year, month or day (in UTC, as the store reads dates without a zone): as `from`
/// the range starts when it starts, as `to` it ends when it ends, so `to=2024-05-01` includes
/// all of 1 May. A date with a time — `2024-05-01T10:30:00Z`, with or without seconds,
/// fractions or a zone (none means UTC) — or seconds since 1970 (`1714559400`) is an instant:
/// `from` includes it, `to` excludes it, so `from=X&to=Y` is `X ≤ date < Y` and consecutive
/// ranges never overlap.
///
/// That is what a person means by "to 1 May", and what an API client paging by timestamps
/// needs. (Before this rule the CLI excluded an instant `--to` and the server included it.)
public struct DateBound: Sendable, Hashable {
    /// The first instant the text covers.
    public let start: Date
    /// The first instant after it: the end of the period for a date, the instant itself for
    /// an instant.
    public let end: Date
    /// The text as given, for error messages.
    public let text: String

    /// Reads a date; `nil` when the text is none of the accepted forms.
    public init?(_ text: String) {
        self.text = text
        if let date = FHIRDate(text) {
            start = date.date
            end = date.precision <= .day ? date.interval.end : date.date
        } else if let seconds = Self.epochSeconds(text) {
            start = Date(timeIntervalSince1970: seconds)
            end = start
        } else {
            return nil
        }
    }

    /// Reads parameter `name`'s value, if given.
    static func parse(_ name: ParameterName, in parameters: QueryParameters) throws(ParameterError) -> DateBound? {
        guard let text = try parameters.single(name) else { return nil }
        guard let bound = DateBound(text) else { throw .notADate(name, value: text) }
        return bound
    }

    /// Seconds since 1970 written as a plain decimal number: `Double(_:)` alone would also take
    /// `0x1p4`, `inf` and `nan`. A four-digit number never gets here: it is a year.
    private static func epochSeconds(_ text: String) -> Double? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text), value.isFinite else {
            return nil
        }
        return value
    }
}

/// A range on one date, `from ≤ date < to`, either end open, read from two parameters by the
/// rule of ``DateBound``.
public struct DateRange: Sendable, Hashable {
    /// The first instant included; `nil` for no lower bound.
    public let from: Date?
    /// The first instant excluded; `nil` for no upper bound.
    public let to: Date?

    /// Makes a range from bounds already read; `nil` when `from` is not before `to`.
    public init?(from: Date?, to: Date?) {
        if let from, let to, from >= to { return nil }
        self.init(checked: from, to)
    }

    private init(checked from: Date?, _ to: Date?) {
        self.from = from
        self.to = to
    }

    /// Reads the range given by parameters `fromName` and `toName`; `nil` when neither is given.
    ///
    /// - Throws: ``ParameterError/notADate(_:value:)`` for a value that is not a date, and
    ///   ``ParameterError/emptyRange(from:fromValue:to:toValue:)`` when `from` is not before
    ///   `to`: an empty range is a mistake, never a question with the answer "nothing".
    public static func parse(
        from fromName: ParameterName, to toName: ParameterName, in parameters: QueryParameters
    ) throws(ParameterError) -> DateRange? {
        let from = try DateBound.parse(fromName, in: parameters)
        let to = try DateBound.parse(toName, in: parameters)
        if let from, let to, from.start >= to.end {
            throw .emptyRange(from: fromName, fromValue: from.text, to: toName, toValue: to.text)
        }
        guard from != nil || to != nil else { return nil }
        return DateRange(checked: from?.start, to?.end)
    }

    /// The range as a closed `DateInterval`, for queries that take one
    /// (``VerifiableRecordQuery/relevantDate``, whose end is inclusive): the end is the last
    /// instant before ``to`` the interval can hold, so the bound stays exclusive.
    public var closedInterval: DateInterval {
        let start = from ?? .distantPast
        guard let to else { return DateInterval(start: start, end: .distantFuture) }
        // A DateInterval keeps its start and duration, so its end is rounded to the duration's
        // precision (microseconds, from distantPast): step the duration down until the end is
        // before `to` both as a Date and as seconds since 1970, which the engines compare.
        var duration = max(0, to.timeIntervalSince(start))
        var interval = DateInterval(start: start, duration: duration)
        while duration > 0, interval.end >= to || interval.end.timeIntervalSince1970 >= to.timeIntervalSince1970 {
            duration = max(0, duration.nextDown)
            interval = DateInterval(start: start, duration: duration)
        }
        return interval
    }
}
