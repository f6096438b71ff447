import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Scopes mean exactly the types they name (review finding 1 of issue 28): for every type the
/// server serves, a token scoped to another type — of the same consent category when there is
/// one — reads nothing of it, by id, by search, by `_id` or through `$everything`, although the
/// person allowed the app every category. Granular Observation scopes likewise per category code.
@Suite struct ScopeMatrixTests {
    /// Every consent category: the person allowed the app everything, so only scopes narrow.
    static let everyCategory: Set<HealthDataType> = Set(ClinicalType.allCases.map { .clinical($0) } + ContextCategory.allCases.map { .context($0) })

    /// A small resource of a type, about the clinic's patient.
    static func resource(_ type: String) -> String {
        #"{"resourceType":"\#(type)","id":"m-\#(type)","subject":{"reference":"Patient/p1"}}"#
    }

    /// Observations named by their category codes; `exam-vital` is an exam with a vital-sign
    /// LOINC code (filed as a vital sign), `plain` has no category.
    static let observations: [(name: String, codes: [String], loinc: String)] = [
        ("lab", ["laboratory"], "2339-0"), ("vital", ["vital-signs"], "8867-4"), ("social", ["social-history"], "72166-2"),
        ("survey", ["survey"], "44249-1"), ("exam", ["exam"], "32485-7"), ("exam-vital", ["exam"], "8867-4"), ("imaging", ["imaging"], "24627-2"),
        ("lab-and-exam", ["laboratory", "exam"], "2339-0"), ("plain", [], "2339-0"),
    ]

    static func observation(_ name: String, codes: [String], loinc: String) -> String {
        let categories = codes.map { #"{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"\#($0)"}]}"# }
        let category = codes.isEmpty ? "" : #""category":[\#(categories.joined(separator: ","))],"#
        return #"{"resourceType":"Observation","id":"\#(name)","status":"final",\#(category)"code":{"coding":[{"system":"http://loinc.org","code":"\#(loinc)"}],"text":"\#(name)"},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-01-01"}"#
    }

    /// A world holding one resource of every served type (and the Observations above), with an
    /// app the person allowed every category.
    struct World {
        let world: ServerWorld
        let app: AppCredentials
        let served: [String]
        let person: String

        init(_ engine: ServerEngine) async throws {
            // Hundreds of requests from one app: its rate limit is not what is tested here.
            world = try await ServerWorld(engine) { $0.limits.appBurst = 1_000_000 }
            let metadata = try await world.test { client in try await client.fhir("/fhir/metadata", token: nil).text }
            let json = try JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any]
            let rest = (json?["rest"] as? [[String: Any]])?.first
            served = ((rest?["resource"] as? [[String: Any]]) ?? []).compactMap { $0["type"] as? String }.sorted()
            let patient = #"{"resourceType":"Patient","id":"p1","name":[{"family":"Example"}]}"#
            let others = served.filter { $0 != "Patient" && $0 != "Observation" }.map(ScopeMatrixTests.resource)
            let observations = ScopeMatrixTests.observations.map { ScopeMatrixTests.observation($0.name, codes: $0.codes, loinc: $0.loinc) }
            try await world.importResources([patient] + others + observations, source: "clinic")
            app = try await world.register(ScopeMatrixTests.everyCategory, name: "Scoped App")
            try await world.consent.decide(appID: app.appID, AuthorizationDecision(allow: ScopeMatrixTests.everyCategory, newData: .share))
            person = try await world.store.personPatientID()
        }

        func servedID(_ type: String, _ id: String) -> String {
            world.store.resourceKey(source: "clinic", resourceType: FHIRResourceType(type), identifier: id).hex
        }

        /// The path that reads the one resource of a type.
        func readPath(_ type: String) -> String {
            switch type {
            case "Patient": return "/fhir/Patient/\(person)"
            case "Observation": return "/fhir/Observation/\(servedID(type, "lab"))"
            default: return "/fhir/\(type)/\(servedID(type, "m-\(type)"))"
            }
        }

        func token(_ scope: String) async throws -> String {
            try #require(try await world.server.issueAccessToken(appID: app.appID, scope: scope))
        }
    }

    /// The consent category the store files the matrix's resource of a type under.
    static func category(_ type: String) throws -> ConsentCategory {
        let json = try #require(try JSONReader().read(Data(resource(type).utf8)).objectValue)
        return ClinicalClassifier().category(ofType: type, json: json)
    }

    @Test(arguments: ServerEngine.all)
    func aScopeOnOneTypeReadsNothingOfAnother(engine: ServerEngine) async throws {
        let w = try await World(engine)
        #expect(w.served.count > 60 && w.served.contains("Goal") && w.served.contains("Provenance"))
        let categories = try Dictionary(uniqueKeysWithValues: w.served.map { ($0, try Self.category($0)) })
        let sameCategoryPairs = try await w.world.test { client in
            var sameCategoryPairs = 0
            for type in w.served {
                // Another type of the same category when there is one, else a type of another.
                let sibling = w.served.first { $0 != type && categories[$0] == categories[type] }
                if sibling != nil { sameCategoryPairs += 1 }
                let other = sibling ?? w.served.first { $0 != type }!
                let token = try await w.token("patient/\(other).rs launch/patient")
                let read = try await client.fhir(w.readPath(type), token: token)
                #expect(read.status == .notFound, "patient/\(other).rs read \(type) by id")
                let search = try await client.fhir("/fhir/\(type)", token: token)
                #expect(search.status == .ok && search.json["total"] as? Int == 0 && search.resources.isEmpty, "patient/\(other).rs searched \(type)")
                if type != "Patient" {
                    let byID = try await client.fhir("/fhir/\(type)?_id=\(w.readPath(type).split(separator: "/").last!)", token: token)
                    #expect(byID.json["total"] as? Int == 0, "patient/\(other).rs found \(type) by _id")
                }
                let everything = try await client.fhir("/fhir/Patient/\(w.person)/$everything?_count=1000", token: token)
                let types = Set(everything.resources.compactMap { $0["resourceType"] as? String })
                #expect(types.isSubset(of: [other]), "patient/\(other).rs: $everything served \(types.sorted())")

                // The control: a scope on the type itself reads it.
                let own = try await w.token("patient/\(type).rs")
                #expect(try await client.fhir(w.readPath(type), token: own).status == .ok, "patient/\(type).rs could not read \(type)")
                let count = try await client.fhir("/fhir/\(type)", token: own).json["total"] as? Int
                #expect(count == (type == "Observation" ? Self.observations.count : 1), "patient/\(type).rs searched \(type)")
            }
            return sameCategoryPairs
        }
        #expect(sameCategoryPairs > 40)
    }

    @Test(arguments: ServerEngine.all)
    func aGranularObservationScopeReadsOnlyItsCategoryCode(engine: ServerEngine) async throws {
        let w = try await World(engine)
        try await w.world.test { client in
            for code in ["laboratory", "vital-signs", "social-history", "survey", "exam", "imaging", "therapy"] {
                let expected = Set(Self.observations.filter { $0.codes.contains(code) }.map(\.name))
                for scope in ["patient/Observation.rs?category=\(code)", "patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|\(code)"] {
                    let token = try await w.token(scope)
                    let search = try await client.fhir("/fhir/Observation?_count=3", token: token)
                    let all = try await client.pages("/fhir/Observation?_count=3", token: token).flatMap(\.names)
                    #expect(Set(all) == expected && all.count == expected.count && search.json["total"] as? Int == expected.count, "\(scope): \(all)")
                    let everything = try await client.pages("/fhir/Patient/\(w.person)/$everything?_count=4", token: token)
                    #expect(Set(everything.flatMap(\.names)) == expected && everything.first?.json["total"] as? Int == expected.count, "\(scope) $everything")
                    for o in Self.observations {
                        let status = try await client.fhir("/fhir/Observation/\(w.servedID("Observation", o.name))", token: token).status
                        #expect(status == (expected.contains(o.name) ? .ok : .notFound), "\(scope) read \(o.name): \(status)")
                    }
                    // Nothing else of the other-observations category comes with it.
                    #expect(try await client.fhir("/fhir/QuestionnaireResponse", token: token).json["total"] as? Int == 0)
                }
            }
            // Another system's code is not this category.
            let foreign = try await w.token("patient/Observation.rs?category=http://example.org/categories|laboratory")
            #expect(try await client.fhir("/fhir/Observation", token: foreign).json["total"] as? Int == 0)
        }
    }

    @Test(arguments: ServerEngine.all)
    func readAndSearchAreSeparatePermissions(engine: ServerEngine) async throws {
        let w = try await World(engine)
        try await w.world.test { client in
            let readOnly = try await w.token("patient/Condition.r")
            #expect(try await client.fhir(w.readPath("Condition"), token: readOnly).status == .ok)
            #expect(try await client.fhir("/fhir/Condition", token: readOnly).json["total"] as? Int == 0)
            let searchOnly = try await w.token("patient/Condition.s")
            #expect(try await client.fhir(w.readPath("Condition"), token: searchOnly).status == .notFound)
            #expect(try await client.fhir("/fhir/Condition", token: searchOnly).json["total"] as? Int == 1)
        }
    }
}
