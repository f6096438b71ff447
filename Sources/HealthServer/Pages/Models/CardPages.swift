import HealthStoreCore
import SmartHealthCards
import VerifiableRecords

/// A stored card or certificate as the pages show it: in lists, on the picker and on its own
/// page.
struct CardSummary: Sendable {
    /// One field of a DCC's entry, labelled as the EU's certificate template labels it.
    struct EntryField: Sendable {
        let label: String
        let value: String
    }

    let kind: String
    let dcc: Bool
    let entry: [EntryField]
    let id: String
    let issuer: String
    let subject: String
    let birth: String
    let items: [String]
    let types: String
    let relevant: String
    let issued: String
    let expires: String
    let status: String
    let verified: Bool

    init(_ c: StoredVerifiableRecord) {
        switch c.status {
        case .verified(let trusted):
            status = trusted ? "Verified — signature valid, issuer trusted" : "Verified — signature valid; issuer not on a trust list"
            verified = true
        case .unverified(let codes):
            status = "Not verified: " + codes.joined(separator: ", ")
            verified = false
        }
        dcc = c.record.sourceType == .euDigitalCOVIDCertificate
        kind = dcc ? "EU Digital COVID Certificate" : "SMART Health Card"
        entry = Self.dccEntry(c.record)
        id = c.identifier
        issuer = c.record.issuerIdentifier
        subject = c.record.subject.fullName
        birth = c.record.subject.dateOfBirth?.text ?? ""
        items = c.record.itemNames
        types = c.record.recordTypes.joined(separator: ", ")
        relevant = c.record.relevantDate.map(PageDates.short) ?? "—"
        issued = PageDates.short(c.record.issuedDate)
        expires = c.record.expirationDate.map(PageDates.short) ?? "never"
    }

    /// The fields of a DCC's one entry (`v[0]`, `t[0]` or `r[0]`), named as the EU's
    /// certificate template names them, for the details page; empty for a card.
    static func dccEntry(_ r: VerifiableClinicalRecord) -> [EntryField] {
        guard let payload = r.decodedPayload?.objectValue else { return [] }
        let labels: [(String, String)] = [
            ("tg", "Disease"), ("vp", "Vaccine type"), ("mp", "Product"), ("ma", "Manufacturer"), ("dn", "Dose"), ("sd", "Doses in series"),
            ("dt", "Vaccinated on"), ("tt", "Test type"), ("nm", "Test name"), ("sc", "Sample taken"), ("tr", "Result"), ("tc", "Test centre"),
            ("fr", "First positive test"), ("df", "Valid from"), ("du", "Valid until"), ("co", "Country"), ("is", "Issued by"), ("ci", "Certificate identifier"),
        ]
        guard let entry = ["v", "t", "r"].lazy.compactMap({ payload[$0]?.arrayValue?.first?.objectValue }).first else { return [] }
        return labels.compactMap { key, label in
            guard let value = entry[key] else { return nil }
            switch value {
            case .string(let s): return EntryField(label: label, value: s)
            case .number(let n): return EntryField(label: label, value: n.description)
            default: return nil
            }
        }
    }
}

/// The person's cards (`/cards`).
struct CardsPage: PageContent {
    static let template = "cards"
    let title = "Verifiable records"
    let cards: [CardSummary]
    let empty: Bool

    init(cards: [CardSummary]) {
        self.cards = cards
        empty = cards.isEmpty
    }
}

/// One card's details (`/cards/{id}`).
struct CardPage: PageContent {
    static let template = "card"
    let title = "Card details"
    let card: CardSummary
}
