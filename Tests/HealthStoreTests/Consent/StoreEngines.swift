import ClinicalRecords
import FHIR
import Foundation
import HealthStore
import TestSupport

/// The engines the engine-independent suites run on. Another engine joins by adding an entry
/// that makes a fresh, empty store (PostgreSQL: a new schema or database per call).
struct StoreEngine: Sendable, CustomStringConvertible {
    let name: String
    let make: @Sendable (TemporaryDirectory, HealthClock) throws -> any HealthStore

    var description: String { name }

    static let sqlite = StoreEngine(name: "sqlite") { dir, clock in
        try SQLiteHealthStore(path: dir.path("store-\(UUID().uuidString).sqlite"), clock: clock)
    }

    static let sqliteEncrypted = StoreEngine(name: "sqlite-encrypted") { dir, clock in
        try SQLiteHealthStore(
            path: dir.path("store-\(UUID().uuidString).sqlite"), clock: clock, credentials: .keyFile(Data(repeating: 7, count: 32)), kdf: .testing)
    }

    static let all: [StoreEngine] = [.sqlite, .sqliteEncrypted]
}

/// A fresh store of one engine with a movable clock, a consent manager and import helpers.
final class ConsentWorld: Sendable {
    let dir = TemporaryDirectory()
    let store: any HealthStore
    let consent: ConsentManager
    private let time = MovableTime()

    init(_ engine: StoreEngine) throws {
        let time = self.time
        store = try engine.make(dir, HealthClock { time.now })
        consent = ConsentManager(store: store)
    }

    func advance(_ seconds: TimeInterval = 60) { time.advance(seconds) }

    /// Imports resources as one file of a source.
    func importResources(_ resources: [String], source: String = "clinic") async throws {
        let path = try dir.write("in/\(UUID().uuidString).json", Make.bundle(resources))
        let report = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: source))).importPaths([path])
        precondition(report.failed == 0, "\(report.files.compactMap(\.error))")
        advance()
    }
}

extension Make {
    /// A resource that classifies as `type`, with a display name that names it.
    static func record(_ type: ClinicalType, id: String, text: String? = nil) -> String {
        let name = text ?? "Name of \(id)"
        switch type {
        case .allergy: return #"{"resourceType":"AllergyIntolerance","id":"\#(id)","code":{"text":"\#(name)"},"recordedDate":"2020-01-01"}"#
        case .condition: return #"{"resourceType":"Condition","id":"\#(id)","code":{"text":"\#(name)"},"onsetDateTime":"2020-02-01"}"#
        case .immunization:
            return #"{"resourceType":"Immunization","id":"\#(id)","status":"completed","vaccineCode":{"text":"\#(name)"},"occurrenceDateTime":"2021-01-02"}"#
        case .labResult:
            return #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"laboratory"}]}],"code":{"text":"\#(name)"},"effectiveDateTime":"2020-03-01"}"#
        case .medication:
            return #"{"resourceType":"MedicationStatement","id":"\#(id)","status":"active","medicationCodeableConcept":{"text":"\#(name)"},"effectiveDateTime":"2020-04-01"}"#
        case .procedure: return #"{"resourceType":"Procedure","id":"\#(id)","status":"completed","code":{"text":"\#(name)"},"performedDateTime":"2020-05-01"}"#
        case .vitalSign:
            return #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"vital-signs"}]}],"code":{"text":"\#(name)"},"effectiveDateTime":"2020-06-01"}"#
        case .coverage: return #"{"resourceType":"Coverage","id":"\#(id)","status":"active","type":{"text":"\#(name)"}}"#
        case .clinicalNote: return #"{"resourceType":"DocumentReference","id":"\#(id)","status":"current","type":{"text":"\#(name)"},"date":"2020-07-01T00:00:00Z"}"#
        }
    }
}
