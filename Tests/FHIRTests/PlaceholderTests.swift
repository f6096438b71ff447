import Testing
@testable import FHIR
@Test func placeholder() {}
