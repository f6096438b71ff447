import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary

/// A date on the command line that is one instant, not a range (a sample's start, a card's
/// expiry): read as the vocabulary reads dates (``DateBound``), a date standing for its first
/// instant.
struct DateArgument: ExpressibleByArgument, Sendable {
    let instant: Date

    init?(argument: String) {
        guard let bound = DateBound(argument) else { return nil }
        instant = bound.start
    }
}

extension QuantityType: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

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

extension HistoryWindow: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
    public static var defaultCompletionKind: CompletionKind { .list(choices.map(\.text)) }
}
