import FHIR
import Foundation
import SmartHealthCards
import Testing
import TestSupport

/// An issuer (or a forger) hands us a card whose FHIR bundle breaks FHIR R4 or the SMART Health
/// Cards rules; each break must fail with its own code. Every card here is signed with the
/// spec's key, so only the bundle is wrong.
@Suite struct StrictBundleTests {
    /// Example 00's bundle, minified: Patient at resource:0, three Immunizations referring to it.
    static func bundleText() throws -> String {
        let bundle = try #require(try Spec.payload(0).object("vc")?.object("credentialSubject")?.object("fhirBundle"))
        return JSONWriter.minifiedString(.object(bundle))
    }

    /// A signed card whose bundle is example 00's, edited as text.
    func card(_ edit: (String) -> String) throws -> String {
        let original = try Self.bundleText()
        let edited = edit(original)
        try #require(edited != original, "the edit changed nothing")
        var forge = try CardForge()
        var subject = try #require(forge.payload.object("vc")?.object("credentialSubject"))
        subject["fhirBundle"] = try JSONReader().read(edited)
        forge.setVC("credentialSubject", .object(subject))
        return try forge.jws()
    }

    func report(_ edit: (String) -> String) async throws -> CardVerification {
        await Spec.verifier().verify(jws: try card(edit), at: Spec.afterSigning)
    }

    // MARK: Empty elements

    struct Empty: Sendable, CustomTestStringConvertible {
        let from: String
        let to: String
        let path: String
        var testDescription: String { path }
    }

    static let empties: [Empty] = [
        Empty(from: #""lotNumber":"0000001""#, to: #""lotNumber":"""#, path: "Bundle.entry[1].resource.lotNumber"),
        Empty(from: #""given":["John","B."]"#, to: #""given":["John",""]"#, path: "Bundle.entry[0].resource.name[0].given[1]"),
        Empty(from: #""given":["John","B."]"#, to: #""given":["John",null]"#, path: "Bundle.entry[0].resource.name[0].given[1]"),
        Empty(from: #""performer":[{"actor":{"display":"ABC General Hospital"}}]"#, to: #""performer":[]"#, path: "Bundle.entry[1].resource.performer"),
        Empty(from: #"{"actor":{"display":"ABC General Hospital"}}"#, to: #"{"actor":{}}"#, path: "Bundle.entry[1].resource.performer[0].actor"),
        Empty(from: #""birthDate":"1951-01-20""#, to: #""birthDate":null"#, path: "Bundle.entry[0].resource.birthDate"),
        Empty(from: #""status":"completed","vaccineCode""#, to: #""status":"completed","note":[{}],"vaccineCode""#, path: "Bundle.entry[1].resource.note[0]"),
    ]

    @Test(arguments: empties)
    func rejectsEmptyElementsNamingTheFirst(_ empty: Empty) async throws {
        let r = try await report { $0.replacingOccurrences(of: empty.from, with: empty.to) }
        #expect(r.errors.map(\.code) == [.fhirEmptyElement])
        #expect(r.error(.fhirEmptyElement)?.message.contains(empty.path) == true, "\(r.errors)")
    }

    @Test func acceptsTheNullsOfARepeatingPrimitiveWithExtensions() async throws {
        // FHIR JSON's one use of null: a placeholder where the `_given` sibling carries an extension.
        let r = try await report {
            $0.replacingOccurrences(
                of: #""given":["John","B."]"#,
                with: #""given":["John",null],"_given":[null,{"extension":[{"url":"http://example.org/initial","valueString":"B."}]}]"#)
        }
        #expect(r.errors.isEmpty, "\(r.errors)")
    }

    @Test func rejectsANullWhoseSiblingHasNoExtensionThere() async throws {
        let r = try await report {
            $0.replacingOccurrences(
                of: #""given":["John","B."]"#,
                with: #""given":["John",null],"_given":[{"extension":[{"url":"http://example.org/x","valueString":"J"}]},null]"#)
        }
        #expect(r.errors.map(\.code) == [.fhirEmptyElement])
        #expect(r.error(.fhirEmptyElement)?.message.contains("Bundle.entry[0].resource.name[0].given[1]") == true)
    }

    // MARK: fullUrl

    @Test func rejectsAFullUrlThatIsNotItsPosition() async throws {
        let r = try await report { $0.replacingOccurrences(of: #""fullUrl":"resource:3""#, with: #""fullUrl":"resource:4""#) }
        #expect(r.errors.map(\.code) == [.fhirFullUrl])
        #expect(r.error(.fhirFullUrl)?.message.contains("resource:4") == true)
    }

    @Test func rejectsNumberingThatStartsAtOneEvenWhenReferencesFollow() async throws {
        let r = try await report { text in
            (0...3).reversed().reduce(text) { $0.replacingOccurrences(of: "resource:\($1)\"", with: "resource:\($1 + 1)\"") }
        }
        #expect(r.errors.map(\.code) == [.fhirFullUrl])
    }

    @Test func rejectsUUIDFullUrlsEvenWhenReferencesResolve() async throws {
        let r = try await report { text in
            (0...3).reduce(text) { $0.replacingOccurrences(of: "\"resource:\($1)\"", with: "\"urn:uuid:00000000-0000-4000-8000-00000000000\($1)\"") }
        }
        #expect(r.errors.map(\.code) == [.fhirFullUrl])
    }

    @Test func rejectsAnEntryWithoutFullUrl() async throws {
        let r = try await report { $0.replacingOccurrences(of: #""fullUrl":"resource:3","#, with: "") }
        #expect(r.errors.map(\.code) == [.fhirFullUrl])
    }

    // MARK: References

    @Test(arguments: [
        #"{"reference":"urn:uuid:6a2b0b8e-6c41-4b4e-9b0e-6f1a6c1b1f00"}"#,
        ##"{"reference":"#patient"}"##,
        #"{"reference":"resource:9"}"#,
        #"{"reference":{"value":"resource:0"}}"#,
        #"{"reference":12}"#,
    ])
    func rejectsReferencesThatResolveToNothingInTheBundle(_ reference: String) async throws {
        let r = try await report { $0.replacingOccurrences(of: #"{"reference":"resource:0"}"#, with: reference) }
        #expect(r.errors.map(\.code) == [.fhirReferences])
    }

    @Test func resolvesAReferenceToAContainedResource() async throws {
        let r = try await report {
            $0.replacingOccurrences(
                of: #""lotNumber":"0000007""#,
                with: ##""lotNumber":"0000007","location":{"reference":"#site"},"contained":[{"resourceType":"Location","id":"site","name":"ABC"}]"##)
        }
        #expect(r.errors.isEmpty, "\(r.errors)")
    }

    @Test func rejectsAContainedReferenceFromAnotherEntry() async throws {
        // #site is contained in entry 2; entry 1 cannot point at it.
        let r = try await report {
            $0.replacingOccurrences(
                of: #""lotNumber":"0000007""#,
                with: #""lotNumber":"0000007","contained":[{"resourceType":"Location","id":"site","name":"ABC"}]"#)
                .replacingOccurrences(of: #""lotNumber":"0000001""#, with: ##""lotNumber":"0000001","location":{"reference":"#site"}"##)
        }
        #expect(r.errors.map(\.code) == [.fhirReferences])
    }

    // MARK: Required elements

    /// What `"type":"collection",` becomes: nothing, a code FHIR does not define, the right code in the wrong case, a number.
    @Test(arguments: ["", #""type":"bag","#, #""type":"Collection","#, #""type":7,"#])
    func requiresABundleTypeFromFHIR(_ type: String) async throws {
        let r = try await report { $0.replacingOccurrences(of: #""type":"collection","#, with: type) }
        #expect(r.errors.map(\.code) == [.fhirBundleType])
    }

    @Test func warnsAboutACardWithoutAPatient() async throws {
        // Only a warning: the spec's own lab example 02 names no Patient.
        let r = try await report { $0.replacingOccurrences(of: #""resourceType":"Patient""#, with: #""resourceType":"RelatedPerson""#) }
        #expect(r.errors.isEmpty, "\(r.errors)")
        #expect(r.warnings.map(\.code).contains(.fhirPatient))
    }

    @Test func refusesACardAboutTwoPeople() async throws {
        let r = try await report { text in
            String(text.dropLast(2)) + #",{"fullUrl":"resource:4","resource":{"resourceType":"Patient","name":[{"family":"Otherperson"}]}}]}"#
        }
        #expect(r.errors.map(\.code) == [.fhirPatient])
    }

    @Test func requiresEntriesToBeAList() async throws {
        let r = try await report { _ in
            #"{"resourceType":"Bundle","type":"collection","entry":{"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Anyperson"}]}}}"#
        }
        #expect(r.errors.map(\.code) == [.fhirBundle])
    }
}
