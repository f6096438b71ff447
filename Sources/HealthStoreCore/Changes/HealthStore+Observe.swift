import ClinicalRecords
import Foundation

extension HealthStore {
    /// Change notices for some clinical types, like HealthKit's observer query.
    ///
    /// Changes made through this store object arrive at once; changes made by other processes
    /// (another `healthrecords import`) are found by checking the anchor every `pollInterval`.
    /// Each notice carries the anchor to pass to an ``AnchoredQuery``. Sample changes are not
    /// announced here; see ``observeSamples(types:after:pollInterval:)``.
    ///
    /// - Parameters:
    ///   - types: the types to watch; `nil` for all.
    ///   - anchor: report changes after this anchor; `nil` for changes after the observer starts.
    public func observe(types: Set<ClinicalType>? = nil, after anchor: QueryAnchor? = nil, pollInterval: Duration = .seconds(1)) -> AsyncStream<StoreChange> {
        observeChanges(after: anchor, pollInterval: pollInterval) { summary in
            let relevant = types.map { summary.types.intersection($0) } ?? summary.types
            return relevant.isEmpty ? nil : StoreChange(types: relevant, anchor: summary.anchor)
        }
    }

    /// Change notices for some quantity types: the observer query for samples.
    ///
    /// Works as ``observe(types:after:pollInterval:)`` does; each notice names the changed
    /// ``StoreChange/sampleTypes`` (its clinical ``StoreChange/types`` are empty) and carries
    /// the anchor to pass to an ``AnchoredSampleQuery``.
    ///
    /// - Parameters:
    ///   - types: the quantity types to watch; `nil` for all.
    ///   - anchor: report changes after this anchor; `nil` for changes after the observer starts.
    public func observeSamples(types: Set<QuantityType>? = nil, after anchor: QueryAnchor? = nil, pollInterval: Duration = .seconds(1)) -> AsyncStream<StoreChange> {
        observeChanges(after: anchor, pollInterval: pollInterval) { summary in
            let relevant = types.map { summary.sampleTypes.intersection($0) } ?? summary.sampleTypes
            return relevant.isEmpty ? nil : StoreChange(types: [], sampleTypes: relevant, anchor: summary.anchor)
        }
    }

    /// Watches the anchor (``ChangeWatch``) and yields what `relevant` makes of each change
    /// summary.
    private func observeChanges(
        after anchor: QueryAnchor?, pollInterval: Duration, relevant: @escaping @Sendable (StoreChange) -> StoreChange?
    ) -> AsyncStream<StoreChange> {
        let store = self
        return ChangeWatch.stream(
            local: localChanges(), pollInterval: pollInterval,
            start: { if let anchor { anchor } else { (try? await store.currentAnchor()) ?? .initial } },
            step: { last in
                guard let summary = try? await store.changeSummary(since: last), summary.anchor > last else { return nil }
                return (summary.anchor, relevant(summary))
            })
    }
}
