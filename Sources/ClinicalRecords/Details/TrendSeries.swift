import FHIR
import Foundation

/// The numeric results of one test or vital sign over time, for a chart: one point per record
/// with a quantity value, oldest first, and the reference range of the latest result that has one.
public struct TrendSeries: Sendable, Hashable {
    /// One result.
    public struct Point: Sendable, Hashable {
        /// When it was taken (the record's clinical date).
        public let date: Date
        /// The value.
        public let value: Double
        /// The value as written, unit included.
        public let text: String
        /// The record it came from; `nil` for a measurement that is not a record (a device's sample).
        public let identity: RecordIdentity?
        /// Whether its interpretation or range flags it.
        public let flagged: Bool

        /// Makes a point.
        public init(date: Date, value: Double, text: String, identity: RecordIdentity?, flagged: Bool) {
            self.date = date
            self.value = value
            self.text = text
            self.identity = identity
            self.flagged = flagged
        }
    }

    /// What groups the results: `loinc:CODE`, else `name:DISPLAY NAME`.
    public let key: String
    /// The name people read.
    public let name: String
    /// The unit of the latest point.
    public let unit: String?
    /// The points, oldest first.
    public let points: [Point]
    /// The range of the latest result that has bounds.
    public let range: RecordDetails.Range?

    /// Makes a series of points in date order (for measurements that are not records, such as a
    /// device's samples).
    public init(key: String, name: String, unit: String?, points: [Point], range: RecordDetails.Range?) {
        self.key = key
        self.name = name
        self.unit = unit
        self.points = points.sorted { $0.date < $1.date }
        self.range = range
    }

    /// The key a record's results are grouped under: its LOINC code, else its display name.
    public static func key(of record: ClinicalRecord, details: RecordDetails) -> String {
        if let loinc = details.codes.first(where: { $0.system == "LOINC" }) { return "loinc:" + loinc.code }
        return "name:" + record.displayName
    }

    /// Groups records with a single quantity value into series; records without one are left out.
    /// Points in another unit than the latest are left out too, so one chart has one scale.
    public static func series(_ records: [ClinicalRecord], tables: CodeTables = .shipped) -> [TrendSeries] {
        var groups: [String: [(ClinicalRecord, RecordDetails)]] = [:]
        var order: [String] = []
        for record in records {
            guard record.clinicalDate != nil else { continue }
            let details = RecordDetails(record: record, tables: tables)
            guard details.quantity != nil else { continue }
            let key = key(of: record, details: details)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((record, details))
        }
        return order.compactMap { key in
            guard let members = groups[key]?.sorted(by: { ($0.0.clinicalDate?.date ?? .distantPast) < ($1.0.clinicalDate?.date ?? .distantPast) }),
                let latest = members.last
            else { return nil }
            let unit = latest.1.quantity?.unit
            let points = members.compactMap { record, details -> Point? in
                guard let q = details.quantity, q.unit == unit, let date = record.clinicalDate?.date else { return nil }
                let flagged = details.flag?.isFlagged ?? false
                return Point(date: date, value: q.number, text: details.values[0].text, identity: record.identity, flagged: flagged)
            }
            let range = members.reversed().lazy.compactMap { $0.1.ranges.first { $0.low != nil || $0.high != nil } }.first
            return TrendSeries(key: key, name: latest.0.displayName, unit: unit, points: points, range: range)
        }
    }

    /// Whether the latest value is higher, lower or the same as the one before it.
    public var direction: Direction? {
        guard points.count >= 2 else { return nil }
        let last = points[points.count - 1].value, previous = points[points.count - 2].value
        if last > previous { return .up }
        if last < previous { return .down }
        return .same
    }

    /// Which way a series moved last.
    public enum Direction: String, Sendable, Hashable {
        case up, down, same
    }
}
