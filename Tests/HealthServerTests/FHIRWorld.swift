import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// A store of FHIR resources from two providers (and a DSTU2 export), an app allowed most of
/// it, and helpers to read `/fhir` answers. Resources name themselves in `code.text` (or the
/// type's equivalent), since the server serves them under ids of its own.
struct FHIRWorld {
    let world: ServerWorld
    let app: AppCredentials

    /// The categories the app is allowed (immunizations are denied, the rest undecided).
    static let allowed: Set<HealthDataType> = [
        .clinical(.labResult), .clinical(.vitalSign), .clinical(.condition), .clinical(.clinicalNote), .context(.personalDetails), .context(.visits),
        .context(.otherObservations),
    ]
    static let requested: Set<HealthDataType> = allowed.union([.clinical(.immunization), .clinical(.procedure)])

    static func lab(_ name: String, date: String, value: String = "5.40", loinc: String = "2339-0", subject: String = "Patient/p1") -> String {
        #"{"resourceType":"Observation","id":"\#(name)","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"\#(loinc)"}],"text":"\#(name)"},"subject":{"reference":"\#(subject)"},"encounter":{"reference":"Encounter/e1"},"effectiveDateTime":"\#(date)","valueQuantity":{"value":\#(value),"unit":"mmol/L"}}"#
    }

    static let clinic: [String] = [
        #"{"resourceType":"Patient","id":"p1","identifier":[{"system":"urn:clinic","value":"111"}],"name":[{"family":"Example","given":["Robin"]}],"gender":"female","birthDate":"1980-05-06"}"#,
        lab("l1", date: "2020-03-01"), lab("l2", date: "2021-06-15T08:30:00Z", value: "6.1", loinc: "4548-4"), lab("l3", date: "2019"),
        #"{"resourceType":"Observation","id":"v1","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}],"text":"v1"},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-06-01","valueQuantity":{"value":72,"unit":"/min"}}"#,
        #"{"resourceType":"Observation","id":"s1","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"survey"}]}],"code":{"text":"s1"},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-07-01","valueInteger":4}"#,
        #"{"resourceType":"Condition","id":"c1","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/condition-category","code":"problem-list-item"}]}],"clinicalStatus":{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/condition-clinical","code":"active"}]},"code":{"coding":[{"system":"http://snomed.info/sct","code":"195967001"}],"text":"c1"},"subject":{"reference":"Patient/p1"},"onsetDateTime":"2018-04-01"}"#,
        #"{"resourceType":"Condition","id":"c2","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/condition-category","code":"encounter-diagnosis"}]}],"code":{"coding":[{"system":"http://snomed.info/sct","code":"444814009"}],"text":"c2"},"subject":{"reference":"Patient/p1"},"onsetDateTime":"2021-01-10"}"#,
        #"{"resourceType":"DiagnosticReport","id":"r1","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/v2-0074","code":"LAB"}]}],"code":{"text":"r1"},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-03-01","result":[{"reference":"Observation/l1"}]}"#,
        #"{"resourceType":"Immunization","id":"i1","status":"completed","vaccineCode":{"text":"i1"},"patient":{"reference":"Patient/p1"},"occurrenceDateTime":"2021-01-02"}"#,
        #"{"resourceType":"Encounter","id":"e1","status":"finished","class":{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"AMB"},"type":[{"text":"e1"}],"subject":{"reference":"Patient/p1"}}"#,
    ]

    static let hospital: [String] = [
        #"{"resourceType":"Patient","id":"8f1c","identifier":[{"system":"urn:hospital","value":"222"},{"system":"urn:clinic","value":"111"}],"name":[{"family":"Example","given":["Robin"]},{"use":"nickname","given":["Rob"]}],"telecom":[{"system":"phone","value":"555-0100"}],"birthDate":"1980-05-06"}"#,
        lab("h1", date: "2022-02-02T10:00:00+01:00", value: "7.25", subject: "urn:uuid:8f1c"),
    ]

    /// A DSTU2 export (category as one object, the DSTU2 way).
    static let legacy: [String] = [
        #"{"resourceType":"Observation","id":"old1","status":"final","category":{"coding":[{"system":"http://hl7.org/fhir/observation-category","code":"laboratory"}]},"code":{"text":"old1"},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2015-01-01","valueQuantity":{"value":1.0}}"#
    ]

    init(_ engine: ServerEngine, decide: Bool = true) async throws {
        world = try await ServerWorld(engine)
        try await world.importResources(Self.clinic, source: "clinic")
        try await world.importResources(Self.hospital, source: "hospital")
        try await world.importResources(Self.legacy, source: "legacy")
        app = try await world.register(Self.requested, name: "FHIR App")
        if decide {
            try await world.consent.decide(
                appID: app.appID, AuthorizationDecision(allow: Self.allowed, deny: [.clinical(.immunization)], newData: .share))
        }
    }

    /// The person's Patient id.
    func personID() async throws -> String { try await world.store.personPatientID() }

    /// The served id of a stored resource.
    func servedID(_ source: String, _ type: FHIRResourceType, _ id: String) -> String {
        world.store.resourceKey(source: source, resourceType: type, identifier: id).hex
    }
}

/// A FHIR answer: status, headers and the JSON body.
struct FHIRAnswer {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String
    let json: [String: Any]

    /// The resources of a Bundle's entries.
    var resources: [[String: Any]] { (json["entry"] as? [[String: Any]] ?? []).map { $0["resource"] as! [String: Any] } }

    /// The names (`code.text`, `vaccineCode.text` or `type[0].text`) of a Bundle's resources.
    var names: [String] { resources.map(FHIRAnswer.name) }

    /// A resource's name.
    static func name(_ r: [String: Any]) -> String {
        for key in ["code", "vaccineCode", "medicationCodeableConcept"] { if let t = (r[key] as? [String: Any])?["text"] as? String { return t } }
        if let t = (r["type"] as? [[String: Any]])?.first?["text"] as? String { return t }
        return r["resourceType"] as? String ?? "?"
    }

    /// A link of a Bundle by relation.
    func link(_ relation: String) -> String? {
        (json["link"] as? [[String: Any]])?.first { $0["relation"] as? String == relation }?["url"] as? String
    }

    /// The first issue of an OperationOutcome: its code and diagnostics.
    var issue: (code: String, diagnostics: String)? {
        guard json["resourceType"] as? String == "OperationOutcome", let i = (json["issue"] as? [[String: Any]])?.first else { return nil }
        return (i["code"] as? String ?? "", i["diagnostics"] as? String ?? "")
    }
}

extension TestClientProtocol {
    /// A GET under the server, with a bearer token; absolute URLs are cut to their path.
    func fhir(_ uri: String, token: String?) async throws -> FHIRAnswer {
        var path = uri
        if uri.hasPrefix("http"), let r = uri.range(of: "://") { path = String(uri[r.upperBound...].drop { $0 != "/" }) }
        // The test client sends the target as given: escape what a URL may not hold.
        let r = try await call(.get, path.replacingOccurrences(of: "|", with: "%7C"), token: token)
        let json = (try? JSONSerialization.jsonObject(with: Data(r.body.readableBytesView))) as? [String: Any] ?? [:]
        return FHIRAnswer(status: r.status, headers: r.headers, text: r.text, json: json)
    }

    /// Every page of a search, following `next` links; the pages' answers in order.
    func pages(_ uri: String, token: String, between: (Int) async throws -> Void = { _ in }) async throws -> [FHIRAnswer] {
        var out: [FHIRAnswer] = []
        var next: String? = uri
        while let u = next {
            let a = try await fhir(u, token: token)
            guard a.status == .ok else { throw TestFailure("\(u): \(a.status) \(a.text)") }
            out.append(a)
            next = a.link("next")
            try await between(out.count)
            if out.count > 100 { throw TestFailure("too many pages") }
        }
        return out
    }
}
