import Foundation

/// The person's decision on one type for one app.
public enum GrantDecision: String, Sendable, Hashable, CaseIterable {
    /// The app may read the type.
    case allowed
    /// The app may not; it sees no data, as if there were none.
    case denied
}

/// What happens to records added after the decision.
public enum NewDataPolicy: String, Sendable, Hashable, CaseIterable {
    /// New records are shared as they arrive.
    case share
    /// New records stay invisible to the app until the person approves them (the default).
    case ask
}

/// A read grant: one app, one type, the decision and the new-data policy.
///
/// Under ``NewDataPolicy/ask``, the app sees records first added at or before
/// ``approvedThrough`` (the approval watermark, an anchor); ``ConsentManager/approveNewData(appID:)``
/// moves it to now. ``changedAnchor`` is the anchor reserved when the grant was last decided or
/// approved: an app whose anchored queries started before it gets the type's visible records
/// again, since some of them became visible without changing.
public struct ReadGrant: Sendable, Hashable {
    /// The ``AppRegistration/id`` of the app the grant is for.
    public let appID: String
    /// What the grant covers: a clinical type, a quantity type, or a context category.
    public let type: HealthDataType
    /// Allowed or denied.
    public var decision: GrantDecision
    /// Share new data, or ask first.
    public var newData: NewDataPolicy
    /// Records first added at or before this anchor are visible under ``NewDataPolicy/ask``.
    public var approvedThrough: QueryAnchor
    /// The anchor reserved when the grant last changed.
    public var changedAnchor: QueryAnchor
    /// When the person decided or last approved.
    public var decidedDate: Date
    /// How far back the app may read the type.
    public var history: HistoryWindow

    /// Makes a grant as stored; no rule is checked here (``ConsentManager`` applies them).
    public init(
        appID: String, type: HealthDataType, decision: GrantDecision, newData: NewDataPolicy, approvedThrough: QueryAnchor,
        changedAnchor: QueryAnchor, decidedDate: Date, history: HistoryWindow = .all
    ) {
        self.appID = appID
        self.type = type
        self.decision = decision
        self.newData = newData
        self.approvedThrough = approvedThrough
        self.changedAnchor = changedAnchor
        self.decidedDate = decidedDate
        self.history = history
    }

    /// The last first-added anchor the app may see; `nil` for no limit.
    var addedThrough: QueryAnchor? { newData == .share ? nil : approvedThrough }
}

/// The person's answer to an app's authorization request.
public struct AuthorizationDecision: Sendable, Hashable {
    /// Types the app may read.
    public var allow: Set<HealthDataType>
    /// Types it may not.
    public var deny: Set<HealthDataType>
    /// The new-data policy for the allowed types.
    public var newData: NewDataPolicy
    /// How far back the allowed types may be read, unless ``historyByType`` says otherwise.
    public var history: HistoryWindow
    /// A window for some allowed types, in place of ``history``.
    public var historyByType: [HealthDataType: HistoryWindow]

    /// Makes a decision; new data is "ask" and history "all" unless said otherwise.
    public init(
        allow: Set<HealthDataType>, deny: Set<HealthDataType> = [], newData: NewDataPolicy = .ask, history: HistoryWindow = .all,
        historyByType: [HealthDataType: HistoryWindow] = [:]
    ) {
        self.allow = allow
        self.deny = deny
        self.newData = newData
        self.history = history
        self.historyByType = historyByType
    }

    /// The window an allowed type is read through.
    public func history(for type: HealthDataType) -> HistoryWindow { historyByType[type] ?? history }
}

/// Whether an app should show the authorization sheet for some types
/// (HealthKit's `HKAuthorizationRequestStatus`).
public enum AuthorizationRequestStatus: String, Sendable, Hashable {
    /// A type has no decision yet, or new data waits for approval under "ask".
    case shouldRequest
    /// Every type is decided and nothing waits.
    case unnecessary
}
