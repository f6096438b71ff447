import Foundation

/// Another person of the same server, as one person's store knows them in a household: whom
/// they let act for them (a parent for a child, a carer), or whom they may act for.
public struct HouseholdMember: Sendable, Hashable {
    /// Which side of a proxy arrangement the other person is on.
    public enum Role: String, Sendable, Hashable {
        /// The other person may act for this one (kept in the store of the one acted for: the
        /// record that decides).
        case proxy
        /// This person may act for the other (a copy in the proxy's store, so their pages can
        /// offer the switch without reading anyone else's store).
        case represented
    }

    /// The other person's id.
    public let id: String
    /// The operator's name of them when the arrangement was made.
    public let name: String
    public let role: Role
    public let since: Date

    public init(id: String, name: String, role: Role, since: Date) { (self.id, self.name, self.role, self.since) = (id, name, role, since) }
}

/// Something a proxy did for the person: which page or form, when. The person sees every one.
public struct ProxyAction: Sendable, Hashable {
    /// The proxy's id and name.
    public let actorID: String
    public let actorName: String
    /// What they did, as the server words it ("GET /records", "POST /links"); sealed in the store.
    public let action: String
    public let date: Date

    public init(actorID: String, actorName: String, action: String, date: Date) {
        (self.actorID, self.actorName, self.action, self.date) = (actorID, actorName, action, date)
    }
}

/// A person's household arrangements and what proxies did for them.
public protocol HouseholdStorage: Sendable {
    /// Every arrangement of this person, oldest first.
    func householdMembers() async throws -> [HouseholdMember]
    /// Adds or refreshes an arrangement.
    func saveHouseholdMember(_ member: HouseholdMember) async throws
    /// Ends an arrangement; `false` when there was none.
    func removeHouseholdMember(id: String, role: HouseholdMember.Role) async throws -> Bool
    /// Records what a proxy did.
    func recordProxyAction(_ action: ProxyAction) async throws
    /// What proxies did, newest first, at most `limit`.
    func proxyActions(limit: Int) async throws -> [ProxyAction]
}
