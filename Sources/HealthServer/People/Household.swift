import HealthStoreCore

/// How a person's server, in a server for many people, reaches the others for household
/// arrangements: their names in the operator's list, and their stores, to keep the copy of an
/// arrangement (``HouseholdMember/Role/represented``) that their own pages read.
struct Household: Sendable {
    /// The operator's name of a person of this server; `nil` when there is none.
    let name: @Sendable (String) async throws -> String?
    /// Another person's store, for their household arrangements and what ending one ends;
    /// `nil` when the operator's list has nobody with that id (an id from a form or a path must
    /// never make a store).
    let storage: @Sendable (String) async throws -> (any HouseholdStorage & CredentialStorage & HostedLinkStorage)?
}
