import FHIR
import Foundation
import HealthStoreCore

/// A FHIR date search value — a prefix (`eq`, `ne`, `gt`, `lt`, `ge`, `le`, `sa`, `eb`) and a
/// date at some precision — as conditions on a span of time (``DateCondition``), all of which
/// must hold.
///
/// The value covers the span its precision gives (`2024-05` the whole month), and so does the
/// resource's date; the prefixes compare the two spans as FHIR's search page defines:
/// `eq` the value's span contains the resource's, `ne` it does not, `gt` / `lt` the resource's
/// span reaches above / below the value's, `ge` / `le` either of those or `eq`, `sa` / `eb` the
/// resource's span starts after / ends before the value's.
enum FHIRDateParameter {
    /// The prefixes answered (`ap` is not).
    static let prefixes = ["eq", "ne", "gt", "lt", "ge", "le", "sa", "eb"]

    /// The conditions one value of a date parameter stands for.
    ///
    /// - Throws: ``FHIRRequestError/invalidParameter(name:value:reason:)`` naming the parameter
    ///   and the value when it is not a FHIR date with an answered prefix.
    static func conditions(name: String, value: String) throws(FHIRRequestError) -> [DateCondition] {
        var prefix = "eq"
        var text = Substring(value)
        if let first = value.utf8.first, (0x61...0x7A).contains(first) {
            prefix = String(value.prefix(2))
            text = value.dropFirst(2)
            guard prefixes.contains(prefix) else {
                throw .invalidParameter(name: name, value: value, reason: "has a prefix this server does not answer (use eq, ne, gt, lt, ge, le, sa or eb)")
            }
        }
        // Bytes, not Foundation's `contains`: that bridged to NSString on every search (a
        // fiftieth of a new search's time, with the repair below).
        guard !value.utf8.contains(UInt8(ascii: ",")) else {
            throw .invalidParameter(name: name, value: value, reason: "has several values; repeat the parameter instead (each one must hold)")
        }
        // A `+` in a zone offset arrives as a space when the client did not escape it.
        let repaired = text.utf8.contains(UInt8(ascii: " ")) ? String(text.map { $0 == " " ? "+" : $0 }) : String(text)
        guard let date = FHIRDate(repaired) else {
            throw .invalidParameter(name: name, value: value, reason: "is not a FHIR date (2024, 2024-05, 2024-05-01 or 2024-05-01T10:00:00Z)")
        }
        let span = self.span(date)
        let lo = span.start, hi = span.end
        switch prefix {
        case "ne": return [DateCondition(anyOf: [.startsBefore(lo), .endsAfter(hi)])]
        case "gt": return [DateCondition(.endsAfter(hi))]
        case "lt": return [DateCondition(.startsBefore(lo))]
        case "ge": return [DateCondition(anyOf: [.startsAtOrAfter(lo), .endsAfter(hi)])]
        case "le": return [DateCondition(anyOf: [.startsBefore(lo), .endsAtOrBefore(hi)])]
        case "sa": return [DateCondition(.startsAtOrAfter(hi))]
        case "eb": return [DateCondition(.endsAtOrBefore(lo))]
        default: return [DateCondition(.startsAtOrAfter(lo)), DateCondition(.endsAtOrBefore(hi))]
        }
    }

    /// The span a date covers: its precision's, except that a time with fractional seconds
    /// covers its millisecond.
    static func span(_ date: FHIRDate) -> DateInterval {
        if date.precision == .second, date.text.contains(".") { return DateInterval(start: date.date, duration: 0.001) }
        return date.interval
    }

    /// Whether a span meets every condition (for dates compared in memory, like the Patient's
    /// birth date). An instant is the span `[t, t + ε)`.
    static func holds(_ conditions: [DateCondition], start: Date, end: Date?) -> Bool {
        conditions.allSatisfy { condition in
            condition.anyOf.contains { bound in
                switch bound {
                case .startsBefore(let x): return start < x
                case .startsAtOrAfter(let x): return start >= x
                case .endsAtOrBefore(let x): return end.map { $0 <= x } ?? (start < x)
                case .endsAfter(let x): return end.map { $0 > x } ?? (start >= x)
                }
            }
        }
    }
}
