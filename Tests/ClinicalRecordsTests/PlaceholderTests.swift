import Testing
@testable import ClinicalRecords
@Test func placeholder() {}
