import Foundation

/// What changed, and when: anchors, anchored queries and this process's change notices.
public protocol ChangeFeed: Sendable {
    /// What changed since an anchor.
    func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult

    /// The anchor of the latest change.
    func currentAnchor() async throws -> QueryAnchor

    /// The clinical types and quantity types with changes after an anchor, and the current
    /// anchor, read together.
    func changeSummary(since anchor: QueryAnchor) async throws -> StoreChange

    /// Notices of changes made through this store object in this process.
    func localChanges() -> AsyncStream<StoreChange>
}
