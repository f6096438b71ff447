import Foundation
import HealthStoreCore
import SmartHealthCards
import VerifiableRecords

extension VerifiableRecordQuery {
    /// The names a verifiable-record query reads.
    public static let parameterNames: [ParameterName] = [.recordTypes, .relevantDateFrom, .relevantDateTo, .sourceTypes]

    /// Reads a verifiable-record query (HealthKit's `HKVerifiableClinicalRecordQuery`):
    ///
    /// - `recordTypes`: types a card must all have (`https://smarthealth.cards#immunization`),
    ///   each value whole (a URI may hold a comma); any card when absent, unless
    ///   `requireRecordTypes` (an app must say what it asks for).
    /// - `relevantDateFrom`, `relevantDateTo`: the card's relevant date, by the rule of
    ///   ``DateBound``.
    /// - `sourceTypes`: `SMARTHealthCard`, `EUDigitalCOVIDCertificate` (HealthKit's raw values);
    ///   any kind when absent.
    public init(parameters p: QueryParameters, requireRecordTypes: Bool = false) throws(ParameterError) {
        let types = p[.recordTypes].filter { !$0.isEmpty }
        if requireRecordTypes, types.isEmpty { throw .missing(.recordTypes) }
        let range = try DateRange.parse(from: .relevantDateFrom, to: .relevantDateTo, in: p)
        var sources: [VerifiableClinicalRecord.SourceType] = []
        for text in p[.sourceTypes] where !text.isEmpty {
            guard let source = VerifiableClinicalRecord.SourceType(rawValue: text) else {
                throw .notOneOf(.sourceTypes, value: text, choices: VerifiableClinicalRecord.SourceType.allCases.map(\.rawValue))
            }
            if !sources.contains(source) { sources.append(source) }
        }
        self.init(recordTypes: types, relevantDate: range?.closedInterval, sourceTypes: sources)
    }
}
