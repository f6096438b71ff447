import SMARTAuthorization
import Testing

@Suite struct ScopeParsingTests {
    @Test func readsResourceAndSpecialScopes() throws {
        let request = try ScopeRequest(parsing: "openid fhirUser launch/patient offline_access patient/Observation.read user/*.cruds patient/Condition.rs")
        #expect(request.specialScopes == [.openid, .fhirUser, .launchPatient, .offlineAccess])
        #expect(request.resourceScopes.map(\.text) == ["patient/Observation.read", "user/*.cruds", "patient/Condition.rs"])
        let observation = try #require(request.resourceScopes.first)
        #expect(observation.context == .patient)
        #expect(observation.resourceType == .named("Observation"))
        #expect(observation.permissions.notation == .version1)
        #expect(observation.permissions.interactions == [.read, .search])
        let all = request.resourceScopes[1]
        #expect(all.context == .user && all.resourceType == .all && all.permissions.interactions == .all)
        #expect(all.permissions.notation == .version2)
        #expect(request.asksForIDToken && request.asksForOfflineAccess && request.asksForPatientContext)
        // Parsing keeps every token as written.
        #expect(request.text == "openid fhirUser launch/patient offline_access patient/Observation.read user/*.cruds patient/Condition.rs")
    }

    static let permissions: [(String, SMARTInteractions, ScopePermissions.Notation)] = [
        ("read", SMARTInteractions.readAndSearch, ScopePermissions.Notation.version1),
        ("write", [.create, .update, .delete], .version1),
        ("*", .all, .version1),
        ("c", [.create], .version2),
        ("r", [.read], .version2),
        ("s", [.search], .version2),
        ("rs", [.read, .search], .version2),
        ("cruds", .all, .version2),
        ("cud", [.create, .update, .delete], .version2),
        ("crs", [.create, .read, .search], .version2),
    ]

    @Test(arguments: permissions)
    func readsPermissions(text: String, interactions: SMARTInteractions, notation: ScopePermissions.Notation) throws {
        let scope = try #require(try ScopeRequest(parsing: "patient/Observation.\(text)").resourceScopes.first)
        #expect(scope.permissions.interactions == interactions)
        #expect(scope.permissions.notation == notation)
        #expect(scope.permissions.text == text)
    }

    @Test func readsGranularCategories() throws {
        let request = try ScopeRequest(parsing: [
            "patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory",
            "patient/Observation.rs?category=vital-signs",
            "patient/Condition.rs?category=|problem-list-item",
            "patient/Observation.rs?category=http%3A%2F%2Fterminology.hl7.org%2FCodeSystem%2Fobservation-category%7Csocial-history",
        ].joined(separator: " "))
        let categories = request.resourceScopes.map(\.category)
        #expect(categories == [
            GranularCategory(system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "laboratory"),
            GranularCategory(system: nil, code: "vital-signs"),
            GranularCategory(system: nil, code: "problem-list-item"),
            GranularCategory(system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "social-history"),
        ])
        #expect(request.resourceScopes[0].query == "category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory")
    }

    @Test func unknownScopesAreKeptAndGrantNothing() throws {
        let request = try ScopeRequest(parsing: "launch launch/encounter email smart/orchestrate_launch patient/Observation.rs?code=1234-5 patient/Observation.rs?category=laboratory&code=1")
        #expect(request.resourceScopes.isEmpty)
        #expect(request.unrecognized == [
            "launch", "launch/encounter", "email", "smart/orchestrate_launch", "patient/Observation.rs?code=1234-5",
            "patient/Observation.rs?category=laboratory&code=1",
        ])
        #expect(request.consentCategories.isEmpty)
        #expect(request.grantedScope == "")
    }

    @Test func spacesAndRepeatsAreTolerated() throws {
        let request = try ScopeRequest(parsing: "  openid   patient/Patient.read openid patient/Patient.read ")
        #expect(request.text == "openid patient/Patient.read")
        #expect(try ScopeRequest(parsing: "").isEmpty)
    }

    static let malformed: [(String, ScopeError)] = [
        ("system/Observation.read", ScopeError.systemScope(scope: "system/Observation.read")),
        ("system/*.rs", .systemScope(scope: "system/*.rs")),
        ("patient/.read", .missingResourceType(scope: "patient/.read")),
        ("patient/", .missingResourceType(scope: "patient/")),
        ("user/.rs", .missingResourceType(scope: "user/.rs")),
        ("patient/Observation", .missingPermissions(scope: "patient/Observation")),
        ("patient/Observation.", .missingPermissions(scope: "patient/Observation.")),
        ("patient/observation.read", .invalidResourceType(scope: "patient/observation.read", type: "observation")),
        ("patient/Obs-ervation.read", .invalidResourceType(scope: "patient/Obs-ervation.read", type: "Obs-ervation")),
        ("patient/**.read", .invalidResourceType(scope: "patient/**.read", type: "**")),
        ("patient/Observation.sr", .permissionsOutOfOrder(scope: "patient/Observation.sr", permissions: "sr")),
        ("patient/Observation.rr", .permissionsOutOfOrder(scope: "patient/Observation.rr", permissions: "rr")),
        ("patient/Observation.scrud", .permissionsOutOfOrder(scope: "patient/Observation.scrud", permissions: "scrud")),
        ("patient/Observation.rx", .unknownPermission(scope: "patient/Observation.rx", permissions: "rx")),
        ("patient/Observation.Read", .unknownPermission(scope: "patient/Observation.Read", permissions: "Read")),
        ("patient/Observation.all", .unknownPermission(scope: "patient/Observation.all", permissions: "all")),
        ("patient/Observation.read.rs", .unknownPermission(scope: "patient/Observation.read.rs", permissions: "read.rs")),
        ("patient/Observation.read?category=laboratory", .granularScopeWithVersion1Permissions(scope: "patient/Observation.read?category=laboratory")),
        ("patient/*.rs?category=laboratory", .granularScopeOnWildcard(scope: "patient/*.rs?category=laboratory")),
        ("patient/Observation.rs?", .malformedQuery(scope: "patient/Observation.rs?", query: "")),
        ("patient/Observation.rs?category=", .malformedQuery(scope: "patient/Observation.rs?category=", query: "category=")),
        ("patient/Observation.rs?category=system|", .malformedQuery(scope: "patient/Observation.rs?category=system|", query: "category=system|")),
        ("patient/Observation.rs?category", .malformedQuery(scope: "patient/Observation.rs?category", query: "category")),
        ("patient/Observation.rs?category=%ZZ", .malformedQuery(scope: "patient/Observation.rs?category=%ZZ", query: "category=%ZZ")),
        ("patient/Observation.rs\u{7F}", .invalidCharacter(scope: "patient/Observation.rs\u{7F}")),
        ("patient/\"Observation\".rs", .invalidCharacter(scope: "patient/\"Observation\".rs")),
        ("patient/Observation.rs\tpatient/Condition.rs", .invalidCharacter(scope: "patient/Observation.rs\tpatient/Condition.rs")),
    ]

    @Test(arguments: malformed)
    func malformedScopesAreTypedErrors(text: String, error: ScopeError) {
        #expect(throws: error) { try ScopeRequest(parsing: "openid \(text)") }
        #expect(error.scope == text)
    }

    @Test func errorsNameTheScope() {
        #expect(ScopeError.systemScope(scope: "system/*.rs").description.contains("system/*.rs"))
        #expect(ScopeError.permissionsOutOfOrder(scope: "patient/X.sr", permissions: "sr").description.contains("c, r, u, d, s"))
    }
}
