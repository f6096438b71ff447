import Foundation
import HealthStoreCore

/// A hosted link as the pages list it.
struct LinkRow: Sendable {
    let handle: String
    let label: String
    let kind: String
    let created: String
    let expires: String
    let state: String
    let stateText: String
    let accesses: Int
    let lastAccess: String
    let active: Bool

    init(_ link: HostedLink, log: [LinkAccess], now: Date) {
        handle = link.handle
        label = link.label ?? "(no label)"
        var parts: [String] = []
        if link.content.summary { parts.append("patient summary") }
        if link.content.checkIn { parts.append("check-in") }
        if !link.content.types.isEmpty { parts.append(link.content.types.joined(separator: ", ")) }
        if !link.content.cards.isEmpty { parts.append("\(link.content.cards.count) card\(link.content.cards.count == 1 ? "" : "s")") }
        var how: [String] = []
        if link.passcode { how.append("passcode") }
        if link.longTerm { how.append("follows your records") }
        if link.direct { how.append("single file") }
        kind = parts.joined(separator: " + ") + (how.isEmpty ? "" : " · " + how.joined(separator: ", "))
        created = PageDates.dateTime(link.created)
        expires = PageDates.dateTime(link.expires)
        let s = link.state(at: now)
        state = s.rawValue
        switch s {
        case .active: stateText = "Active"
        case .expired: stateText = "Expired"
        case .revoked: stateText = "Revoked"
        case .disabled: stateText = "Disabled after wrong passcodes"
        }
        accesses = log.count
        lastAccess = log.first.map { PageDates.dateTime($0.date) } ?? "never"
        active = s == .active
    }
}

/// The person's links (`/links`): active first, then those that ended.
struct LinksPage: PageContent {
    static let template = "links"
    let title = "Shared links"
    let active: [LinkRow]
    let ended: [LinkRow]
    let empty: Bool
    let hasEnded: Bool

    init(active: [LinkRow], ended: [LinkRow]) {
        (self.active, self.ended) = (active, ended)
        empty = active.isEmpty
        hasEnded = !ended.isEmpty
    }
}

/// Making a link (`/links/new`): what goes in (with the summary's sections and counts), which
/// cards, the kind of link and its lifetime.
struct NewLinkPage: PageContent {
    static let template = "link-new"

    /// One section of the summary and how many entries it would carry.
    struct SectionPreview: Sendable {
        let title: String
        let count: String
        let inCheckIn: Bool
    }

    /// A card that can go in.
    struct CardChoice: Sendable {
        let id: String
        let name: String
    }

    /// A lifetime to pick.
    struct Lifetime: Sendable {
        let seconds: Int
        let text: String
        let selected: Bool
    }

    let title = "Share with a clinician"
    let sections: [SectionPreview]
    let cards: [CardChoice]
    let hasCards: Bool
    let lifetimes: [Lifetime]
    let error: String?

    static let lifetimeChoices: [(Int, String)] = [(900, "15 minutes"), (3600, "1 hour"), (86_400, "1 day"), (604_800, "7 days"), (2_592_000, "30 days")]

    init(sections: [SectionPreview], cards: [CardChoice], error: String?) {
        self.sections = sections
        self.cards = cards
        hasCards = !cards.isEmpty
        lifetimes = Self.lifetimeChoices.map { Lifetime(seconds: $0.0, text: $0.1, selected: $0.0 == 900) }
        self.error = error
    }
}

/// A file of a link, as its page lists it.
struct LinkFileRow: Sendable {
    let contentType: String
    let updated: String
    let size: String

    init(_ f: HostedLinkFileInfo) {
        contentType = f.contentType == "application/smart-health-card" ? "SMART Health Cards" : "FHIR (\(f.contentType))"
        updated = PageDates.dateTime(f.updated)
        size = f.byteCount >= 10_240 ? "\(f.byteCount / 1024) KB" : "\(f.byteCount) bytes"
    }
}

/// A link just made: its QR code and text, shown once (unless it is long-term).
struct CreatedLinkPage: PageContent {
    static let template = "link-created"
    let title = "Your link is ready"
    let handle: String
    let label: String?
    let viewerLink: String
    let link: String
    let qr: String
    let expires: String
    let passcode: Bool
    let longTerm: Bool
    let files: [LinkFileRow]
}

/// One link (`/links/{handle}`): what it holds, its access log, and Revoke.
struct LinkPage: PageContent {
    static let template = "link"

    /// One line of the log.
    struct Access: Sendable {
        let date: String
        let recipient: String
        let event: String
        let status: Int
        let served: Bool
    }

    let title: String
    let link: LinkRow
    let files: [LinkFileRow]
    let attemptsLeft: String?
    /// A long-term link can be shown again (its key is kept, sealed); no other can.
    let qr: String?
    let viewerLink: String?
    let log: [Access]
    let emptyLog: Bool

    static func words(_ event: LinkAccess.Event) -> String {
        switch event {
        case .manifest: return "Opened (list of files sent)"
        case .file: return "File sent"
        case .direct: return "File sent (single-file link)"
        case .passcode: return "Refused: wrong or missing passcode"
        case .revoked: return "Refused: revoked"
        case .expired: return "Refused: expired"
        case .disabled: return "Refused: disabled after wrong passcodes"
        case .rateLimited: return "Refused: asked too often"
        case .busy: return "Asked to wait"
        case .locationUsed: return "Refused: file link used before"
        case .locationExpired: return "Refused: file link older than an hour"
        case .badRequest: return "Refused: malformed request"
        }
    }
}
