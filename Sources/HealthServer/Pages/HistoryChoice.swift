import HealthStoreCore

/// The history windows a consent sheet was answered with: `history` for the sheet, and
/// `history-<type>` for a type given its own ("" keeps the sheet's).
struct HistoryChoice: Sendable {
    let history: HistoryWindow
    let byType: [HealthDataType: HistoryWindow]

    /// What the form says for `types`; `nil` when a window is not one ``HistoryWindow`` reads
    /// (nothing is decided then: a bad value never widens a grant).
    init?(_ form: FormFields, types: [HealthDataType]) {
        guard let history = form["history"].map({ HistoryWindow(text: $0) }) ?? .all else { return nil }
        var byType: [HealthDataType: HistoryWindow] = [:]
        for t in types {
            guard let text = form["history-" + t.name], !text.isEmpty else { continue }
            guard let window = HistoryWindow(text: text) else { return nil }
            if window != history { byType[t] = window }
        }
        self.history = history
        self.byType = byType
    }

    /// What a sheet shows before the person answers: the window most of the types already
    /// granted have (all, when none is), and each type's own where it differs.
    static func shown(_ grants: [HealthDataType: ReadGrant], types: [HealthDataType]) -> (sheet: HistoryWindow, own: [HealthDataType: HistoryWindow]) {
        let granted = types.compactMap { grants[$0] }.filter { $0.decision == .allowed }.map(\.history)
        let counts = Dictionary(granted.map { ($0, 1) }, uniquingKeysWith: +)
        let sheet = counts.max { a, b in a.value != b.value ? a.value < b.value : (a.key.days ?? .max) < (b.key.days ?? .max) }?.key ?? .all
        var own: [HealthDataType: HistoryWindow] = [:]
        for t in types { if let g = grants[t], g.decision == .allowed, g.history != sheet { own[t] = g.history } }
        return (sheet, own)
    }
}
