import Foundation

/// Where the store gets the time from, so added dates and anchors can be tested.
public struct HealthClock: Sendable {
    private let read: @Sendable () -> Date

    /// Makes a clock from a function.
    public init(_ now: @escaping @Sendable () -> Date) { self.read = now }

    /// The current time.
    public var now: Date { read() }

    /// The system clock.
    public static let system = HealthClock { Date() }

    /// A clock stopped at one instant.
    public static func fixed(_ date: Date) -> HealthClock { HealthClock { date } }
}
