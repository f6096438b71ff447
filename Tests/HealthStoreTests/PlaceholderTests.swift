import Testing
@testable import HealthStore
@Test func placeholder() {}
