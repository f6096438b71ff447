import ClinicalRecords
import Crypto
import FHIR
import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport

/// Provider connections and sync checkpoints in the store, on every engine; and the deletion a
/// full download makes of what a provider no longer holds.
@Suite struct ProviderStorageTests {
    static func provider(_ id: String, token: String = "secret-access-token", added: Date) -> ProviderConnection {
        ProviderConnection(
            id: id, name: "General Hospital", fhirBase: "https://fhir.example.org/r4", clientID: "client-1", client: .secret("client-secret"),
            scope: "patient/*.rs", access: .signIn, allowLoopback: false, patientID: "p-1",
            tokens: .init(accessToken: token, refreshToken: "refresh-1", expires: added.addingTimeInterval(3600)), status: .connected, added: added)
    }

    @Test(arguments: StoreEngine.all)
    func connectionsRoundTripAndSurviveAReopen(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        #expect(try await f.store.providers().isEmpty)
        var a = Self.provider("b-hospital", added: f.now)
        try await f.store.saveProvider(a)
        try await f.store.saveProvider(Self.provider("a-clinic", added: f.now))
        #expect(try await f.store.providers().map(\.id) == ["a-clinic", "b-hospital"])
        #expect(try await f.store.provider(id: "b-hospital") == a)
        // Saving again replaces (a refreshed token), keeping the checkpoint.
        try await f.store.saveSyncCheckpoint(Data("{\"step\":1}".utf8), providerID: "b-hospital")
        a.tokens?.accessToken = "rotated"
        a.status = .needsSignIn
        try await f.store.saveProvider(a)
        let reopened = try await f.reopen()
        #expect(try await reopened.provider(id: "b-hospital") == a)
        #expect(try await reopened.syncCheckpoint(providerID: "b-hospital") == Data("{\"step\":1}".utf8))
        try await reopened.saveSyncCheckpoint(nil, providerID: "b-hospital")
        #expect(try await reopened.syncCheckpoint(providerID: "b-hospital") == nil)
        await #expect(throws: HealthStoreError.self) { try await reopened.saveSyncCheckpoint(Data(), providerID: "missing") }
        #expect(try await reopened.deleteProvider(id: "b-hospital"))
        #expect(try await !reopened.deleteProvider(id: "b-hospital"))
        #expect(try await reopened.providers().map(\.id) == ["a-clinic"])
    }

    @Test func tokensAndSecretsAreSealedInAnEncryptedStore() async throws {
        let f = try await StoreFixture(sealer: AESGCMSealer(dataKey: SymmetricKey(size: .bits256)))
        try await f.store.saveProvider(Self.provider("h", token: "ACCESS-TOKEN-IN-THE-CLEAR?", added: f.now))
        try await f.store.saveSyncCheckpoint(Data("CHECKPOINT-IN-THE-CLEAR?".utf8), providerID: "h")
        #expect(try await f.store.provider(id: "h")?.tokens?.accessToken == "ACCESS-TOKEN-IN-THE-CLEAR?")
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: f.dir.url.path) where name.hasPrefix("store.sqlite") {
            bytes += try Data(contentsOf: f.dir.url.appendingPathComponent(name))
        }
        for secret in ["ACCESS-TOKEN-IN-THE-CLEAR?", "refresh-1", "client-secret", "CHECKPOINT-IN-THE-CLEAR?", "fhir.example.org"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the file")
        }
    }

    static func observation(_ id: String) -> String {
        """
        {"resourceType":"Observation","id":"\(id)","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],
         "code":{"coding":[{"system":"http://loinc.org","code":"2345-7","display":"Glucose"}]},"effectiveDateTime":"2024-01-0\(id.count)","valueQuantity":{"value":5.1,"unit":"mmol/L"}}
        """
    }

    @Test(arguments: StoreEngine.all)
    func aFullDownloadDeletesWhatTheProviderNoLongerHolds(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let bundle = """
            {"resourceType":"Bundle","type":"collection","entry":[{"resource":\(Self.observation("a"))},{"resource":\(Self.observation("bb"))},
             {"resource":\(Self.observation("ccc"))},{"resource":{"resourceType":"Patient","id":"p1"}}]}
            """
        try await f.importJSON("one.json", bundle, source: "provider:h")
        try await f.importJSON("other.json", bundle, source: "elsewhere")
        let before = try await f.store.currentAnchor()
        let keep = Set(["a"].map { f.store.resourceKey(source: "provider:h", resourceType: .observation, identifier: $0) })
        // Only Observations are judged: the Patient stays though it is not kept.
        #expect(try await f.store.deleteResources(source: "provider:h", keeping: keep, resourceTypes: [.observation]) == 2)
        let left = try await f.store.records(RecordQuery(type: .labResult, predicate: .source("provider:h")))
        #expect(left.map(\.identity.identifier) == ["a"])
        #expect(try await f.store.contextResources(ofType: .patient, source: "provider:h").count == 1)
        #expect(try await f.store.count(RecordQuery(type: .labResult, predicate: .source("elsewhere"))) == 3)
        let changes = try await f.store.changes(AnchoredQuery(type: .labResult, anchor: before))
        #expect(Set(changes.deleted.map(\.identity.identifier)) == ["bb", "ccc"])
        // Every type: the Patient goes too.
        #expect(try await f.store.deleteResources(source: "provider:h", keeping: keep, resourceTypes: nil) == 1)
        #expect(try await f.store.deleteResources(source: "no-such-source", keeping: [], resourceTypes: nil) == 0)
    }

    /// A source's count answers "is anything gone?" for a sync; deletion itself never trusts a
    /// count of keys: a key kept that names nothing held must not hide a resource that is gone.
    @Test(arguments: StoreEngine.all)
    func deletionsDoNotTrustTheNumberOfKeysKept(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let bundle = """
            {"resourceType":"Bundle","type":"collection","entry":[{"resource":\(Self.observation("a"))},{"resource":\(Self.observation("bb"))},
             {"resource":\(Self.observation("ccc"))},{"resource":{"resourceType":"Patient","id":"p1"}}]}
            """
        try await f.importJSON("one.json", bundle, source: "provider:h")
        #expect(try await f.store.resourceCount(source: "provider:h", resourceTypes: nil) == 4)
        #expect(try await f.store.resourceCount(source: "provider:h", resourceTypes: [.observation]) == 3)
        #expect(try await f.store.resourceCount(source: "provider:h", resourceTypes: [.condition]) == 0)
        #expect(try await f.store.resourceCount(source: "no-such-source", resourceTypes: nil) == 0)
        // As many keys as Observations held, but "zzz" is not one of them: "ccc" is gone all the same.
        let keep = Set(["a", "bb", "zzz"].map { f.store.resourceKey(source: "provider:h", resourceType: .observation, identifier: $0) })
        #expect(try await f.store.deleteResources(source: "provider:h", keeping: keep, resourceTypes: [.observation]) == 1)
        #expect(try await f.store.resourceCount(source: "provider:h", resourceTypes: [.observation]) == 2)
    }
}
