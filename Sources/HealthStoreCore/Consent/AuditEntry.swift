import Foundation

/// One read by an app, as the audit log keeps it: who, when, what kind of read, which types
/// were asked for and how many records or samples were returned.
public struct AuditEntry: Sendable, Hashable {
    /// The ``AppRegistration/id`` of the app that read.
    public let appID: String
    /// When it read.
    public let date: Date
    /// The kind of read: `records`, `count`, `changes`, `resource`, `context`, `sources`,
    /// `samples`, `sample-changes`, `cards`.
    public let operation: String
    /// The types the read asked for (every requested type, for a read without a type).
    public let types: [HealthDataType]
    /// How many records, samples or cards it returned (for `count`, the count).
    public let count: Int

    /// Makes an entry; ``AppView`` writes one per read, dated by the store's clock.
    public init(appID: String, date: Date, operation: String, types: [HealthDataType], count: Int) {
        self.appID = appID
        self.date = date
        self.operation = operation
        self.types = types
        self.count = count
    }
}
