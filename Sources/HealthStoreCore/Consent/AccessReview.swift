import Foundation

/// How often the person is asked to review which apps can read (HealthKit reminds people
/// periodically), and whether access nobody confirms ends by itself.
public struct AccessReviewSettings: Sendable, Hashable {
    /// Days between reviews of an app's access (90 by default; 7…3650).
    public var intervalDays: Int
    /// Whether an app's access ends by itself when it is not confirmed within
    /// ``graceDays`` of its review falling due (off by default).
    public var expireUnconfirmed: Bool

    /// The shortest and longest review intervals, in days.
    public static let intervalRange = 7...3650
    /// Days a due review waits before unconfirmed access ends (when ``expireUnconfirmed``).
    public static let graceDays = 30
    /// The defaults: every 90 days, nothing ends by itself.
    public static let standard = AccessReviewSettings(intervalDays: 90, expireUnconfirmed: false)

    /// Makes settings; an interval outside ``intervalRange`` is clamped into it.
    public init(intervalDays: Int, expireUnconfirmed: Bool) {
        self.intervalDays = min(max(intervalDays, Self.intervalRange.lowerBound), Self.intervalRange.upperBound)
        self.expireUnconfirmed = expireUnconfirmed
    }

    /// Stored as one setting, so a page asks for it in one statement: `"<days> <on|off>"`.
    static let settingName = "access-review"

    var text: String { "\(intervalDays) \(expireUnconfirmed ? "on" : "off")" }

    init?(text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let days = Int(parts[0]), parts[1] == "on" || parts[1] == "off" else { return nil }
        self.init(intervalDays: days, expireUnconfirmed: parts[1] == "on")
    }
}

/// One app that can read, as the access review shows it.
public struct AccessReviewItem: Sendable {
    /// The app.
    public let app: AppRegistration
    /// What it may read: its allowed grants, with their windows and new-data policy.
    public let grants: [ReadGrant]
    /// When the person last decided or confirmed its access.
    public let confirmed: Date
    /// When the next review falls due.
    public let due: Date
    /// When its access ends unless confirmed; `nil` when nothing ends by itself.
    public let ends: Date?
    /// Its latest read, from the audit log; `nil` when it never read.
    public let lastRead: AuditEntry?
    /// The types it read since it was last confirmed, from the audit log.
    public let readSinceConfirmed: [HealthDataType]

    /// Whether the review is due at `now`.
    public func isDue(at now: Date) -> Bool { now >= due }
}
