import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

extension ClinicalType: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

extension RecordSort.Key: ExpressibleByArgument {}

/// A date on the command line: a FHIR date (`2020`, `2020-03`, `2020-03-04`), an ISO 8601
/// date-time, or seconds since 1970.
struct DateArgument: ExpressibleByArgument, Sendable {
    let date: FHIRDate?
    let instant: Date

    init?(argument: String) {
        if let d = FHIRDate(argument) {
            date = d
            instant = d.date
        } else if let seconds = Double(argument), seconds.isFinite {
            date = nil
            instant = Date(timeIntervalSince1970: seconds)
        } else {
            return nil
        }
    }

    /// The first instant after the whole date (so `--to 2020-03-04` includes that day).
    var endOfPeriod: Date { date?.interval.end ?? instant }
}

extension QuantityType: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

extension SampleSort.Key: ExpressibleByArgument {}

/// A `KEY=VALUE` pair on the command line (sample metadata).
struct KeyValueArgument: ExpressibleByArgument, Sendable {
    let key: String
    let value: String

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else { return nil }
        key = String(argument[..<equals])
        value = String(argument[argument.index(after: equals)...])
    }
}

/// A comma-separated list of grantable types (`condition,lab-result,blood-glucose`).
struct TypeListArgument: ExpressibleByArgument, Sendable {
    let types: Set<HealthDataType>

    init?(argument: String) {
        var types = Set<HealthDataType>()
        for name in argument.split(separator: ",", omittingEmptySubsequences: true) {
            guard let t = HealthDataType(name: name.trimmingCharacters(in: .whitespaces)) else { return nil }
            types.insert(t)
        }
        guard !types.isEmpty else { return nil }
        self.types = types
    }

    static var defaultCompletionKind: CompletionKind { .list(HealthDataType.allCases.map(\.name)) }
}

extension NewDataPolicy: ExpressibleByArgument {}
