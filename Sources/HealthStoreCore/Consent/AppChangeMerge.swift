/// Merges one app's per-type change lists into one anchored answer.
///
/// Each change has the anchor the app sees (its *effective* anchor: the change's own anchor,
/// or the anchor of the grant change that made it visible, whichever is later). Changes are
/// ordered by it; a page never splits changes that share an effective anchor (those a grant
/// change made visible together), since resuming from that anchor would skip the rest.
enum AppChangeMerge {
    struct Change<Added: Sendable, Deleted: Sendable>: Sendable {
        enum Kind: Sendable {
            case added(Added)
            case deleted(Deleted)
        }

        let kind: Kind
        let effective: QueryAnchor
        let own: QueryAnchor
    }

    /// The first `limit` changes (never splitting a group with one effective anchor) and the
    /// anchor to resume from: the last one taken, or `current` when all were taken.
    static func take<A, D>(_ changes: [Change<A, D>], limit: Int?, current: QueryAnchor) -> ([Change<A, D>], QueryAnchor) {
        let sorted = changes.sorted { ($0.effective, $0.own) < ($1.effective, $1.own) }
        guard let limit, sorted.count > limit else { return (sorted, max(current, sorted.last?.effective ?? .initial)) }
        // As the engines do: a page of none returns the anchor before everything.
        guard limit > 0 else { return ([], .initial) }
        var end = limit
        // Back off to the start of a group the page would split…
        while end > 0, end < sorted.count, sorted[end].effective == sorted[end - 1].effective { end -= 1 }
        // …unless the first group alone is larger than a page: then it is returned whole.
        if end == 0 {
            end = 1
            while end < sorted.count, sorted[end].effective == sorted[0].effective { end += 1 }
        }
        return (Array(sorted[..<end]), sorted[end - 1].effective)
    }
}
