import Foundation
import Testing

@testable import ProviderSync

/// What a download asks a provider for, from what its CapabilityStatement says.
@Suite struct DownloadPlanTests {
    static let base = URL(string: "https://ehr.example.org/fhir")!

    @Test func everythingWhereOfferedElseASearchPerServedType() throws {
        let r4 = """
            {"resourceType":"CapabilityStatement","fhirVersion":"4.0.1","publisher":"General Hospital","rest":[{"mode":"server","resource":[
              {"type":"Patient","operation":[{"name":"everything","definition":"http://hl7.org/fhir/OperationDefinition/Patient-everything"}]},
              {"type":"Observation"},{"type":"Condition"},{"type":"Basic"}]}]}
            """
        let caps = try ProviderCapabilities(statement: Data(r4.utf8))
        #expect(caps.offersEverything && !caps.isDSTU2 && caps.organizationName == "General Hospital")
        #expect(DownloadStep.plan(caps, useEverything: true).map(\.key) == ["Patient", "$everything"])
        #expect(DownloadStep.plan(caps, useEverything: false).map(\.key) == ["Patient", "Condition", "Observation"])

        let dstu2 = """
            {"resourceType":"Conformance","fhirVersion":"1.0.2","rest":[{"mode":"server","resource":[{"type":"MedicationOrder"},{"type":"MedicationRequest"},{"type":"Observation"}]}]}
            """
        let old = try ProviderCapabilities(statement: Data(dstu2.utf8))
        #expect(old.isDSTU2 && !old.offersEverything)
        #expect(DownloadStep.plan(old, useEverything: true).map(\.key) == ["Patient", "MedicationOrder", "Observation"])
        // A server that lists nothing is searched for every type.
        #expect(DownloadStep.plan(ProviderCapabilities(), useEverything: true).count == 1 + DownloadStep.r4Types.count)
        #expect(throws: ProviderSyncError.self) { try ProviderCapabilities(statement: Data(#"{"resourceType":"Patient"}"#.utf8)) }
    }

    @Test func urlsCarryPatientCategoryCountAndSince() {
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        let search = DownloadStep(kind: .search, resourceType: "Observation", category: "vital-signs")
        #expect(
            search.url(base: Self.base, patient: "p 1", count: 50, since: since).absoluteString
                == "https://ehr.example.org/fhir/Observation?patient=p%201&category=vital-signs&_lastUpdated=gt2023-11-14T22%3A13%3A20Z&_count=50")
        #expect(search.key == "Observation?category=vital-signs")
        let everything = DownloadStep(kind: .everything, resourceType: "Patient")
        #expect(everything.url(base: Self.base, patient: "7", count: 100, since: since).absoluteString == "https://ehr.example.org/fhir/Patient/7/$everything?_count=100&_since=2023-11-14T22%3A13%3A20Z")
        #expect(DownloadStep(kind: .patient, resourceType: "Patient").url(base: Self.base, patient: "7", count: 1, since: since).absoluteString == "https://ehr.example.org/fhir/Patient/7")
    }

    @Test func retryAfterIsSecondsOrAnHTTPDateAndPausesAreCapped() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.seconds(retryAfter: "3", now: now) == 3)
        #expect(RetryPolicy.seconds(retryAfter: "Tue, 14 Nov 2023 22:13:30 GMT", now: now) == 10)
        #expect(RetryPolicy.seconds(retryAfter: "soon", now: now) == nil)
        #expect(RetryPolicy.seconds(retryAfter: "-1", now: now) == nil)
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(2))
        #expect(policy.delay(after: 429, attempt: 1, retryAfter: "1", now: now) == .seconds(1))
        #expect(policy.delay(after: 429, attempt: 1, retryAfter: "3600", now: now) == .seconds(2))
        for attempt in 1...3 {
            let d = policy.delay(after: 503, attempt: attempt, retryAfter: nil, now: now)
            let grown = 0.1 * pow(2, Double(attempt - 1))
            #expect(d >= .milliseconds(Int64(grown * 500)) && d <= .milliseconds(Int64(grown * 1500)))
        }
        #expect(RetryPolicy.retries(429) && RetryPolicy.retries(503) && RetryPolicy.retries(504) && !RetryPolicy.retries(400) && !RetryPolicy.retries(401))
    }
}
