import Foundation

/// A SMART Health Link this store serves: what it shares, how, until when, and what happened to
/// it. The link's key is not here: for a link whose content cannot change the store never has
/// it; a long-term link's key is kept sealed (``HostedLinkStorage/longTermSecret(handle:)``).
public struct HostedLink: Sendable, Hashable {
    /// What a link is in, at a moment.
    public enum State: String, Sendable, Hashable {
        /// Served.
        case active
        /// Past its expiry: answered as unknown.
        case expired
        /// Revoked by the person: answered as unknown.
        case revoked
        /// Its passcode was guessed wrong as often as it allows: answered as unknown.
        case disabled
    }

    /// A name for the link in commands and pages (16 hex characters); not a secret, and not
    /// part of the link's URL.
    public let handle: String
    /// Flag `L`: the files follow the person's records.
    public let longTerm: Bool
    /// Flag `P`: a passcode is asked for.
    public let passcode: Bool
    /// Flag `U`: the single file is fetched directly.
    public let direct: Bool
    /// The label shown to the recipient, if any.
    public let label: String?
    /// What the files were built from.
    public let content: HostedLinkContent
    public let created: Date
    public let expires: Date
    /// When the person revoked it.
    public let revoked: Date?
    /// Whether its files, key and passcode are gone (revoked or expired); the log stays.
    public let ended: Bool
    /// The store anchor the files were built at (a long-term link is rebuilt past it).
    public let contentAnchor: Int64
    /// How many wrong passcodes the link takes in its lifetime (0 without `P`).
    public let passcodeLimit: Int
    /// Wrong passcodes so far.
    public let passcodeFailures: Int
    /// The files as served.
    public let files: [HostedLinkFileInfo]

    public init(
        handle: String, longTerm: Bool, passcode: Bool, direct: Bool, label: String?, content: HostedLinkContent, created: Date, expires: Date,
        revoked: Date?, ended: Bool, contentAnchor: Int64, passcodeLimit: Int, passcodeFailures: Int, files: [HostedLinkFileInfo]
    ) {
        (self.handle, self.longTerm, self.passcode, self.direct, self.label, self.content) = (handle, longTerm, passcode, direct, label, content)
        (self.created, self.expires, self.revoked, self.ended, self.contentAnchor) = (created, expires, revoked, ended, contentAnchor)
        (self.passcodeLimit, self.passcodeFailures, self.files) = (passcodeLimit, passcodeFailures, files)
    }

    /// The link's state at a moment; revoked wins over disabled, which wins over expired.
    public func state(at now: Date) -> State { status.state(at: now) }

    /// Its flags and state, without what it shares.
    public var status: HostedLinkStatus {
        HostedLinkStatus(
            handle: handle, longTerm: longTerm, passcode: passcode, direct: direct, expires: expires, revoked: revoked, ended: ended,
            passcodeLimit: passcodeLimit, passcodeFailures: passcodeFailures)
    }

    /// Wrong passcodes still allowed.
    public var attemptsLeft: Int { max(0, passcodeLimit - passcodeFailures) }

    /// The flags as the spec's letters (`L`, `P`, `U`, in that order).
    public var flagLetters: String { (longTerm ? "L" : "") + (passcode ? "P" : "") + (direct ? "U" : "") }
}

/// What serving a link decides from: its flags and state, read on every request (so a revoke
/// by any process acts at once), without what it shares.
public struct HostedLinkStatus: Sendable, Hashable {
    public let handle: String
    public let longTerm: Bool
    public let passcode: Bool
    public let direct: Bool
    public let expires: Date
    public let revoked: Date?
    public let ended: Bool
    public let passcodeLimit: Int
    public let passcodeFailures: Int

    public init(
        handle: String, longTerm: Bool, passcode: Bool, direct: Bool, expires: Date, revoked: Date?, ended: Bool, passcodeLimit: Int, passcodeFailures: Int
    ) {
        (self.handle, self.longTerm, self.passcode, self.direct, self.expires, self.revoked) = (handle, longTerm, passcode, direct, expires, revoked)
        (self.ended, self.passcodeLimit, self.passcodeFailures) = (ended, passcodeLimit, passcodeFailures)
    }

    /// The link's state at a moment; revoked wins over disabled, which wins over expired.
    public func state(at now: Date) -> HostedLink.State {
        if revoked != nil { return .revoked }
        if passcode && passcodeFailures >= passcodeLimit { return .disabled }
        if ended || expires <= now { return .expired }
        return .active
    }
}

/// What a hosted link's files were built from, kept (sealed) so a long-term link can be built
/// again and the person can see what they shared.
public struct HostedLinkContent: Codable, Sendable, Hashable {
    /// The International Patient Summary.
    public var summary: Bool
    /// The check-in bundle (patient, problems, medications, allergies, immunizations).
    public var checkIn: Bool
    /// Record types (``ClinicalType`` names) shared as one collection.
    public var types: [String]
    /// Identifiers of the cards shared.
    public var cards: [String]

    public init(summary: Bool = false, checkIn: Bool = false, types: [String] = [], cards: [String] = []) {
        (self.summary, self.checkIn, self.types, self.cards) = (summary, checkIn, types, cards)
    }

    /// Whether nothing is named.
    public var isEmpty: Bool { !summary && !checkIn && types.isEmpty && cards.isEmpty }
}

/// One file of a hosted link, without its bytes.
public struct HostedLinkFileInfo: Sendable, Hashable {
    /// Its place in the manifest, from 0.
    public let ordinal: Int
    /// `application/fhir+json`, `application/smart-health-card`, …
    public let contentType: String
    /// When its content last changed.
    public let updated: Date
    /// The JWE's length in bytes.
    public let byteCount: Int

    public init(ordinal: Int, contentType: String, updated: Date, byteCount: Int) {
        (self.ordinal, self.contentType, self.updated, self.byteCount) = (ordinal, contentType, updated, byteCount)
    }
}

/// A file as the link serves it: the compact JWE.
public struct HostedLinkFile: Sendable, Hashable {
    public let info: HostedLinkFileInfo
    /// The JWE compact serialization's bytes.
    public let jwe: Data

    public init(info: HostedLinkFileInfo, jwe: Data) {
        (self.info, self.jwe) = (info, jwe)
    }
}

/// A link about to be stored.
public struct NewHostedLink: Sendable {
    public var link: HostedLink
    /// SHA-256 of the random part of the link's URL (the URL itself is never stored).
    public var lookupDigest: Data
    /// The passcode's slow hash (with `P`).
    public var passcode: LinkPasscode?
    /// What only a long-term link keeps (sealed): its key and its text, so files can be
    /// encrypted again and the person can show the link again. Refused for any other link.
    public var longTermSecret: Data?
    /// The files' JWEs, by ordinal.
    public var jwes: [Data]
    /// The proxy who made the link for the person (their person id, stored sealed), or `nil`
    /// when the person made it: ``HostedLinkStorage/revokeHostedLinks(madeBy:at:)`` ends a
    /// proxy's links.
    public var madeBy: String?

    public init(link: HostedLink, lookupDigest: Data, passcode: LinkPasscode?, longTermSecret: Data?, jwes: [Data], madeBy: String? = nil) {
        (self.link, self.lookupDigest, self.passcode, self.longTermSecret, self.jwes) = (link, lookupDigest, passcode, longTermSecret, jwes)
        self.madeBy = madeBy
    }
}

/// The outcome of asking to check a passcode.
public enum PasscodeReservation: Sendable, Equatable {
    /// An attempt is held: check the passcode against this hash, then settle it.
    case reserved(LinkPasscode)
    /// Every attempt left is held by a check under way: try again in a moment.
    case busy
    /// The link is unknown, ended, revoked or disabled.
    case inactive
}

/// The outcome of following a file's location.
public enum LinkLocationUse: Sendable, Equatable {
    /// The location was good and is now spent.
    case used(handle: String, ordinal: Int, recipient: String)
    /// Used before.
    case replayed(handle: String)
    /// Older than its lifetime.
    case expired(handle: String)
    /// Never issued (or swept).
    case missing
}

/// The outcome of revoking a link.
public enum LinkRevocation: Sendable, Equatable {
    /// Revoked now: its files, key and locations are gone.
    case revoked
    /// It had ended before (revoked or expired) at this date.
    case alreadyEnded(Date)
    /// No link has this handle.
    case missing
}

/// A file location handed out in a manifest: single use, short-lived.
public struct NewLinkLocation: Sendable {
    /// SHA-256 of the location's random token (the token is only in the URL).
    public var tokenDigest: Data
    public var handle: String
    public var ordinal: Int
    public var expires: Date
    /// Who asked, as the manifest request named them.
    public var recipient: String

    public init(tokenDigest: Data, handle: String, ordinal: Int, expires: Date, recipient: String) {
        (self.tokenDigest, self.handle, self.ordinal, self.expires, self.recipient) = (tokenDigest, handle, ordinal, expires, recipient)
    }
}

/// One line of a link's access log: every answer about a known link, served or refused.
public struct LinkAccess: Sendable, Hashable {
    /// What was asked and how it ended.
    public enum Event: String, Sendable, Hashable, CaseIterable {
        /// A manifest was served.
        case manifest
        /// A file was served from a location.
        case file
        /// A `U` link's file was served directly.
        case direct
        /// A wrong (or missing) passcode.
        case passcode
        /// Asked after the link was revoked.
        case revoked
        /// Asked after the link expired.
        case expired
        /// Asked after the passcode limit disabled the link.
        case disabled
        /// A long-term link polled too often.
        case rateLimited = "rate-limited"
        /// Every passcode attempt left was being checked.
        case busy
        /// A location followed a second time.
        case locationUsed = "location-used"
        /// A location followed after its lifetime.
        case locationExpired = "location-expired"
        /// A request the protocol does not allow (no recipient, wrong method for the link).
        case badRequest = "bad-request"
    }

    public let handle: String
    public let date: Date
    /// The recipient the request named.
    public let recipient: String?
    public let event: Event
    /// The HTTP status answered.
    public let status: Int
    /// The file, for file events.
    public let ordinal: Int?

    public init(handle: String, date: Date, recipient: String?, event: Event, status: Int, ordinal: Int? = nil) {
        (self.handle, self.date, self.recipient, self.event, self.status, self.ordinal) = (handle, date, recipient, event, status, ordinal)
    }
}
