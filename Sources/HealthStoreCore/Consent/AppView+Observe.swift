import ClinicalRecords
import Foundation

extension AppView {
    /// Change notices for clinical types the app may see, like the store's observer: a notice
    /// comes only when a change is visible to the app, and carries the app's anchor. For a
    /// denied type no notice ever comes, as in an empty store. Observing is not a read and
    /// leaves no audit entry; the queries the app makes after a notice do.
    public func observe(types: Set<ClinicalType>? = nil, after anchor: QueryAnchor? = nil, pollInterval: Duration = .seconds(1)) -> AsyncStream<StoreChange> {
        watch(after: anchor, pollInterval: pollInterval) { view, last in
            let granted = try await view.visibility().records(nil).compactMap(\.type.clinicalType).filter { types?.contains($0) ?? true }
            var changed = Set<ClinicalType>()
            for type in granted {
                let r = try await view.recordChanges(AnchoredQuery(type: type, anchor: last, limit: 1))
                if !r.added.isEmpty || !r.deleted.isEmpty { changed.insert(type) }
            }
            return changed.isEmpty ? nil : StoreChange(types: changed, anchor: .initial)
        }
    }

    /// Change notices for quantity types the app may see; see ``observe(types:after:pollInterval:)``.
    public func observeSamples(types: Set<QuantityType>? = nil, after anchor: QueryAnchor? = nil, pollInterval: Duration = .seconds(1)) -> AsyncStream<StoreChange> {
        watch(after: anchor, pollInterval: pollInterval) { view, last in
            let windows = try await view.visibility().sampleWindows.filter { types?.contains($0.type) ?? true }
            var changed = Set<QuantityType>()
            for w in windows {
                let r = try await view.sampleChangesUnaudited(AnchoredSampleQuery(type: w.type, anchor: last, limit: 1))
                if !r.added.isEmpty || !r.deleted.isEmpty { changed.insert(w.type) }
            }
            return changed.isEmpty ? nil : StoreChange(types: [], sampleTypes: changed, anchor: .initial)
        }
    }

    /// Checks for visible changes after the last anchor on every wake-up of ``ChangeWatch``;
    /// `check` names the changed types (its anchor is replaced by the app's anchor, read before
    /// the check so no change falls between two checks).
    private func watch(
        after anchor: QueryAnchor?, pollInterval: Duration,
        check: @escaping @Sendable (AppView, QueryAnchor) async throws -> StoreChange?
    ) -> AsyncStream<StoreChange> {
        let view = self
        return ChangeWatch.stream(
            local: store.localChanges(), pollInterval: pollInterval,
            start: { if let anchor { anchor } else { (try? await view.currentAnchor()) ?? .initial } },
            step: { last in
                guard let now = try? await view.currentAnchor(), now > last else { return nil }
                let change = (try? await check(view, last)) ?? nil
                return (now, change.map { StoreChange(types: $0.types, sampleTypes: $0.sampleTypes, anchor: now) })
            })
    }
}
