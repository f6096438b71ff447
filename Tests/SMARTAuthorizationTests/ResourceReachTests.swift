import FHIR
import Foundation
import SMARTAuthorization
import Testing

/// What scopes reach, per type and per interaction.
@Suite struct ResourceReachTests {
    static func reach(_ scope: String, _ interaction: SMARTInteractions = .search) throws -> ResourceReach {
        ResourceReach(try ScopeRequest(parsing: scope), for: interaction)
    }

    static func observation(_ categories: [(system: String?, code: String)]) throws -> JSONObject {
        let codings = categories.map { c in
            #"{"coding":[{\#(c.system.map { #""system":"\#($0)","# } ?? "")"code":"\#(c.code)"}]}"#
        }
        return try #require(try JSONReader().read(Data(#"{"resourceType":"Observation","category":[\#(codings.joined(separator: ","))]}"#.utf8)).objectValue)
    }

    @Test func typesAreReachedOnlyWhenNamed() throws {
        let r = try Self.reach("patient/Goal.rs launch/patient openid")
        #expect(r.extent(of: "Goal") == .whole && r.extent(of: "ServiceRequest") == nil && r.extent(of: "CarePlan") == nil && !r.isEmpty)
        #expect(try Self.reach("patient/*.read").extent(of: "Anything") == .whole)
        #expect(try Self.reach("openid fhirUser").isEmpty)
        // Create, update or delete alone reach nothing; r and s are separate.
        #expect(try Self.reach("patient/Goal.cud").isEmpty)
        #expect(try Self.reach("patient/Goal.r", .search).isEmpty && (try Self.reach("patient/Goal.r", .read)).extent(of: "Goal") == .whole)
        // A whole-type scope beside a granular one reaches the whole type, in either order.
        for s in ["patient/Observation.rs patient/Observation.rs?category=laboratory", "patient/Observation.rs?category=laboratory patient/Observation.rs"] {
            #expect(try Self.reach(s).extent(of: "Observation") == .whole)
        }
        // A query this server does not read grants nothing.
        #expect(try Self.reach("patient/Observation.rs?code=1234-5").isEmpty)
    }

    @Test func granularScopesAdmitOnlyTheirCategoryCodes() throws {
        let system = "http://terminology.hl7.org/CodeSystem/observation-category"
        let r = try Self.reach("patient/Observation.rs?category=survey patient/Observation.rs?category=\(system)|laboratory")
        #expect(r.isGranular)
        #expect(r.admits(try Self.observation([(system, "survey")])))
        #expect(r.admits(try Self.observation([(nil, "survey")])))
        #expect(!r.admits(try Self.observation([(system, "exam")])))
        #expect(r.admits(try Self.observation([(system, "exam"), (system, "laboratory")])))
        // The system named must match; a code without a system is not within it.
        #expect(!r.admits(try Self.observation([("http://example.org", "laboratory")])))
        #expect(!r.admits(try Self.observation([(nil, "laboratory")])))
        #expect(!r.admits(try Self.observation([])))
        let condition = try #require(try JSONReader().read(Data(#"{"resourceType":"Condition","category":[{"coding":[{"code":"survey"}]}]}"#.utf8)).objectValue)
        #expect(!r.admits(condition))
    }
}
