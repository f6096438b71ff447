import SMARTAuthorization
import Testing

@Suite struct ScopeNarrowingTests {
    static let lab = "patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory"

    @Test(arguments: [
        ("patient/Observation.rs", "patient/Observation.rs"),
        ("patient/Observation.r", "patient/Observation.rs"),
        ("patient/Observation.s", "patient/Observation.rs"),
        ("patient/Observation.rs", "patient/*.rs"),
        ("patient/Observation.read", "patient/*.read"),
        ("patient/Observation.read", "patient/Observation.rs"),
        ("patient/Observation.rs", "patient/Observation.read"),
        ("patient/Observation.rs?category=laboratory", "patient/Observation.rs"),
        ("patient/Observation.rs?category=laboratory", "patient/*.rs"),
        (lab, "patient/Observation.rs?category=laboratory"),
        (lab, lab),
        ("patient/Observation.r?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory", lab),
        ("patient/Observation.rs", "patient/Observation.r patient/Observation.s"),
        ("", "patient/*.rs openid"),
        ("openid fhirUser", "openid fhirUser offline_access patient/*.rs"),
        ("offline_access patient/Patient.rs patient/Condition.rs", "offline_access patient/Patient.rs patient/Condition.rs patient/Observation.rs"),
    ])
    func narrowerRequestsAreAllowed(request: String, grant: String) throws {
        #expect(try ScopeRequest(parsing: request).isNarrowing(of: ScopeRequest(parsing: grant)))
    }

    @Test(arguments: [
        ("patient/*.rs", "patient/Observation.rs"),
        ("patient/Condition.rs", "patient/Observation.rs"),
        ("patient/Observation.rs", "patient/Observation.r"),
        ("patient/Observation.cruds", "patient/Observation.rs"),
        ("patient/Observation.*", "patient/Observation.read"),
        ("patient/Observation.write", "patient/Observation.read"),
        ("patient/Observation.rs", "patient/Observation.rs?category=laboratory"),
        ("patient/Observation.rs?category=vital-signs", "patient/Observation.rs?category=laboratory"),
        ("patient/Observation.rs?category=laboratory", lab),
        ("patient/Observation.rs?category=http://example.org/other|laboratory", lab),
        ("user/Observation.rs", "patient/Observation.rs"),
        ("patient/Observation.rs offline_access", "patient/Observation.rs"),
        ("openid fhirUser", "openid"),
        ("launch/patient", "patient/*.rs"),
        ("patient/Observation.rs email", "patient/Observation.rs"),
        ("patient/Observation.rs?category=laboratory&code=1", "patient/Observation.rs"),
    ])
    func escalationIsRefused(request: String, grant: String) throws {
        #expect(try !ScopeRequest(parsing: request).isNarrowing(of: ScopeRequest(parsing: grant)))
    }
}
