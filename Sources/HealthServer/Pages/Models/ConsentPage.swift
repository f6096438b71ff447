import HealthStoreCore

/// The authorization sheet (`/consent/{id}`): one toggle per type asked for, and the
/// new-data choice.
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

        init(_ type: HealthDataType, required: Bool, on: Bool) {
            name = type.name
            title = TypeDescriptions.title(type)
            about = TypeDescriptions.about(type)
            sensitivity = TypeDescriptions.sensitivity(type).rawValue
            high = TypeDescriptions.sensitivity(type) == .high
            self.required = required
            self.on = on
        }
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

    init(title: String, id: String, action: String, app: String, purpose: String, privacy: String, types: [TypeChoice], hasRequired: Bool, share: Bool) {
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
