import ClinicalRecords
import Foundation

extension AppView {
    /// Anchored record changes through the app's grants, without an audit entry.
    func recordChanges(_ query: AnchoredQuery) async throws -> AnchoredQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let v = try await visibility()
        let windows = v.records(query.type)
        guard !windows.isEmpty else {
            // The same statement an allowed empty type runs, matching nothing: equal cost.
            _ = try await store.changes(AnchoredQuery(type: query.type, predicate: Self.and(query.predicate, .visible([])), anchor: query.anchor, limit: query.limit))
            return AnchoredQueryResult(added: [], addedAnchors: [], deleted: [], anchor: try await appAnchor(v))
        }
        let from = query.anchor ?? .initial
        var changes: [AppChangeMerge.Change<ClinicalRecord, DeletedRecord>] = []
        // A type whose page was cut at the limit resumes from its own anchor, not the app's.
        var current = try await appAnchor(v)
        for w in windows {
            guard let type = w.type.clinicalType else { continue }
            let changed = v.changedAnchor(.clinical(type))
            let predicate = Self.and(query.predicate, .visible([w]))
            if from < changed {
                // The grant changed since the anchor: everything visible of the type, dated no
                // earlier than the grant change.
                let all = try await store.changes(AnchoredQuery(type: type, predicate: predicate, anchor: nil, limit: nil))
                for (record, own) in zip(all.added, all.addedAnchors) {
                    changes.append(.init(kind: .added(record), effective: max(own, changed), own: own))
                }
                for d in all.deleted where d.anchor > from { changes.append(.init(kind: .deleted(d), effective: d.anchor, own: d.anchor)) }
            } else {
                let r = try await store.changes(AnchoredQuery(type: type, predicate: predicate, anchor: query.anchor, limit: query.limit))
                for (record, own) in zip(r.added, r.addedAnchors) { changes.append(.init(kind: .added(record), effective: own, own: own)) }
                for d in r.deleted { changes.append(.init(kind: .deleted(d), effective: d.anchor, own: d.anchor)) }
                if let limit = query.limit, r.added.count + r.deleted.count >= limit { current = min(current, r.anchor) }
            }
        }
        let (taken, anchor) = AppChangeMerge.take(changes, limit: query.limit, current: current)
        var added: [ClinicalRecord] = []
        var anchors: [QueryAnchor] = []
        var deleted: [DeletedRecord] = []
        for c in taken {
            switch c.kind {
            case .added(let r):
                added.append(r)
                anchors.append(c.effective)
            case .deleted(let d):
                deleted.append(d)
            }
        }
        return AnchoredQueryResult(added: added, addedAnchors: anchors, deleted: deleted, anchor: anchor)
    }

    /// Anchored sample changes through the app's grants, without an audit entry.
    func sampleChangesUnaudited(_ query: AnchoredSampleQuery) async throws -> AnchoredSampleQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let v = try await visibility()
        let windows = v.samples(query.type)
        guard !windows.isEmpty else {
            // The same statement an allowed empty type runs, matching nothing: equal cost.
            let none: SamplePredicate = query.predicate.map { .and([$0, .visible([])]) } ?? .visible([])
            _ = try await store.sampleChanges(AnchoredSampleQuery(type: query.type, predicate: none, anchor: query.anchor, limit: query.limit))
            return AnchoredSampleQueryResult(added: [], deleted: [], anchor: try await appAnchor(v))
        }
        let from = query.anchor ?? .initial
        var changes: [AppChangeMerge.Change<StoredQuantitySample, DeletedSample>] = []
        var current = try await appAnchor(v)
        for w in windows {
            let changed = v.changedAnchor(.quantity(w.type))
            let predicate: SamplePredicate = query.predicate.map { .and([$0, .visible([w])]) } ?? .visible([w])
            if from < changed {
                let all = try await store.sampleChanges(AnchoredSampleQuery(type: w.type, predicate: predicate, anchor: nil, limit: nil))
                for s in all.added { changes.append(.init(kind: .added(s), effective: max(s.anchor, changed), own: s.anchor)) }
                for d in all.deleted where d.anchor > from { changes.append(.init(kind: .deleted(d), effective: d.anchor, own: d.anchor)) }
            } else {
                let r = try await store.sampleChanges(AnchoredSampleQuery(type: w.type, predicate: predicate, anchor: query.anchor, limit: query.limit))
                for s in r.added { changes.append(.init(kind: .added(s), effective: s.anchor, own: s.anchor)) }
                for d in r.deleted { changes.append(.init(kind: .deleted(d), effective: d.anchor, own: d.anchor)) }
                if let limit = query.limit, r.added.count + r.deleted.count >= limit { current = min(current, r.anchor) }
            }
        }
        let (taken, anchor) = AppChangeMerge.take(changes, limit: query.limit, current: current)
        var added: [StoredQuantitySample] = []
        var deleted: [DeletedSample] = []
        for c in taken {
            switch c.kind {
            case .added(let s): added.append(s)
            case .deleted(let d): deleted.append(d)
            }
        }
        return AnchoredSampleQueryResult(added: added, deleted: deleted, anchor: anchor)
    }
}
