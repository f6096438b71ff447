import ClinicalRecords
import HealthStoreCore

/// The authorization sheet (`/consent/{id}`): one toggle per type asked for, how far back
/// (for all of them, and per type), and the new-data choice.
struct ConsentPage: PageContent {
    static let template = "consent"

    /// One type the app asks for, as its toggle shows it.
    struct TypeChoice: Sendable {
        let name: String
        let title: String
        let about: String
        let sensitivity: String
        let high: Bool
        let required: Bool
        let on: Bool
        /// This type's own window, in place of the sheet's: "" (the sheet's) first.
        let windows: [HistoryOption]

        init(_ type: HealthDataType, required: Bool, on: Bool, window: HistoryWindow? = nil) {
            name = type.name
            title = TypeDescriptions.title(type)
            about = TypeDescriptions.about(type)
            sensitivity = TypeDescriptions.sensitivity(type).rawValue
            high = TypeDescriptions.sensitivity(type) == .high
            self.required = required
            self.on = on
            windows = [HistoryOption(value: "", label: "As chosen below", checked: window == nil)]
                + HistoryWindow.choices.map { HistoryOption($0, checked: $0 == window) }
        }
    }

    /// One medication of the person's list, to tick for the app.
    struct MedicationChoice: Sendable {
        let id: String
        let name: String
        let about: String
        let checked: Bool

        init(_ entry: MedicationEntry, checked: Bool) {
            id = entry.id
            name = entry.name
            let sources = entry.sources.map(\.name).joined(separator: ", ")
            about = [entry.status.rawValue, sources, entry.latestDate.map { "latest " + PageDates.short($0) }].compactMap { $0 }.joined(separator: " · ")
            self.checked = checked
        }
    }

    /// One history window to choose.
    struct HistoryOption: Sendable {
        let value: String
        let label: String
        let checked: Bool

        init(value: String, label: String, checked: Bool) {
            self.value = value
            self.label = label
            self.checked = checked
        }

        init(_ window: HistoryWindow, checked: Bool) {
            self.init(value: window.text, label: window.phrase.prefix(1).uppercased() + window.phrase.dropFirst(), checked: checked)
        }
    }

    /// At the shared SMART base of a server for many people: whose records the app will read,
    /// and the others the signed-in person may choose instead (the people they act for).
    struct WhoseRecords: Sendable {
        /// Someone the person may choose.
        struct Person: Sendable {
            let id: String
            let name: String
        }

        /// Whether it is the signed-in person's own records (not a proxy's session).
        let own: Bool
        /// In a proxy's session, the name of the person acted for.
        let whoseName: String
        /// The people the signed-in person acts for (in their own session).
        let others: [Person]
        /// The authorization request to come back to after choosing.
        let next: String
    }

    let title: String
    let id: String
    let action: String
    let app: String
    let purpose: String
    let privacy: String
    let types: [TypeChoice]
    let hasRequired: Bool
    let share: Bool
    let ask: Bool
    /// How far back, for every type without its own window.
    let histories: [HistoryOption]
    /// The person's medications, when the app asks for medications: only those ticked are read.
    let medications: [MedicationChoice]
    let asksMedications: Bool
    /// Whose records, at the shared SMART base; `nil` elsewhere.
    let whose: WhoseRecords?
    /// "your", or in a proxy's session the name of the person acted for with "'s".
    let possessive: String

    /// Whose records a session answers for, as the page's heading says it.
    static func possessive(_ session: PersonSession?) -> String {
        guard let proxy = session?.proxy else { return "your" }
        return (proxy.actingFor.isEmpty ? "someone" : proxy.actingFor) + "'s"
    }

    init(
        title: String, id: String, action: String, app: String, purpose: String, privacy: String, types: [TypeChoice], hasRequired: Bool, share: Bool,
        history: HistoryWindow = .all, medications: [MedicationChoice]? = nil, whose: WhoseRecords? = nil, possessive: String = "your"
    ) {
        self.whose = whose
        self.possessive = possessive
        self.title = title
        self.id = id
        self.action = action
        self.app = app
        self.purpose = purpose
        self.privacy = privacy
        self.types = types
        self.hasRequired = hasRequired
        self.share = share
        self.ask = !share
        histories = HistoryWindow.choices.map { HistoryOption($0, checked: $0 == history) }
        self.medications = medications ?? []
        asksMedications = medications != nil
    }
}

/// The verifiable-record picker (`/share/{id}`): the cards that have every type asked for.
struct SharePage: PageContent {
    static let template = "share"
    let title: String
    let id: String
    let app: String
    let purpose: String
    let privacy: String
    let cards: [CardSummary]
    let empty: Bool
    let types: String

    init(title: String, id: String, app: String, purpose: String, privacy: String, cards: [CardSummary], types: String) {
        self.title = title
        self.id = id
        self.app = app
        self.purpose = purpose
        self.privacy = privacy
        self.cards = cards
        self.empty = cards.isEmpty
        self.types = types
    }
}
