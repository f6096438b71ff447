import Foundation
import HealthStoreCore

extension VerifiableRecordQuery {
    /// The names a verifiable-record query reads.
    public static let parameterNames: [ParameterName] = [.recordTypes, .relevantDateFrom, .relevantDateTo]

    /// Reads a verifiable-record query (HealthKit's `HKVerifiableClinicalRecordQuery`):
    ///
    /// - `recordTypes`: types a card must all have (`https://smarthealth.cards#immunization`),
    ///   each value whole (a URI may hold a comma); any card when absent, unless
    ///   `requireRecordTypes` (an app must say what it asks for).
    /// - `relevantDateFrom`, `relevantDateTo`: the card's relevant date, by the rule of
    ///   ``DateBound``.
    public init(parameters p: QueryParameters, requireRecordTypes: Bool = false) throws(ParameterError) {
        let types = p[.recordTypes].filter { !$0.isEmpty }
        if requireRecordTypes, types.isEmpty { throw .missing(.recordTypes) }
        let range = try DateRange.parse(from: .relevantDateFrom, to: .relevantDateTo, in: p)
        self.init(recordTypes: types, relevantDate: range?.closedInterval)
    }
}
