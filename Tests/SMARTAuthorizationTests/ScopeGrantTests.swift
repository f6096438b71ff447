import SMARTAuthorization
import Testing

@Suite struct ScopeGrantTests {
    @Test(arguments: [
        ("patient/Observation.read", "patient/Observation.read"),
        ("patient/Observation.*", "patient/Observation.read"),
        ("patient/Observation.write", ""),
        ("patient/Observation.cruds", "patient/Observation.rs"),
        ("patient/Observation.crs", "patient/Observation.rs"),
        ("patient/Observation.cud", ""),
        ("patient/Observation.r", "patient/Observation.r"),
        ("patient/Observation.cs", "patient/Observation.s"),
        ("user/*.*", "user/*.read"),
        ("user/*.cruds", "user/*.rs"),
        ("patient/Observation.cruds?category=laboratory", "patient/Observation.rs?category=laboratory"),
        (
            "patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory",
            "patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory"
        ),
        ("openid fhirUser launch/patient offline_access online_access profile", "openid fhirUser launch/patient offline_access online_access profile"),
        ("launch email patient/Patient.read", "patient/Patient.read"),
        ("patient/Patient.read patient/Patient.*", "patient/Patient.read"),
        (
            "launch/patient openid fhirUser offline_access patient/*.read patient/Observation.rs patient/Condition.write",
            "launch/patient openid fhirUser offline_access patient/*.read patient/Observation.rs"
        ),
    ])
    func grantsReadOnlyInTheFormAskedFor(requested: String, granted: String) throws {
        #expect(try ScopeRequest(parsing: requested).grantedScope == granted)
    }

    /// The granted scope does not depend on what the person allowed: an app cannot tell a
    /// denied category from an empty one by reading `scope`.
    @Test func aGrantIsTheSameScopeReadBack() throws {
        let request = try ScopeRequest(parsing: "patient/Observation.cruds openid")
        let granted = request.granted
        #expect(granted.consentCategories == request.consentCategories)
        #expect(try ScopeRequest(parsing: granted.text) == granted)
        #expect(granted.granted == granted)
    }

    @Test func idTokensAndRefreshTokensFollowTheScopes() throws {
        #expect(try ScopeRequest(parsing: "openid fhirUser").asksForIDToken)
        #expect(try ScopeRequest(parsing: "openid profile").asksForIDToken)
        #expect(try !ScopeRequest(parsing: "openid").asksForIDToken)
        #expect(try !ScopeRequest(parsing: "fhirUser").asksForIDToken)
        #expect(try ScopeRequest(parsing: "offline_access").asksForOfflineAccess)
        #expect(try !ScopeRequest(parsing: "online_access").asksForOfflineAccess)
    }
}
