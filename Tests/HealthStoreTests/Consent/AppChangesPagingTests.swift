import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// Paging an app's anchored changes with a limit visits every change once.
@Suite struct AppChangesPagingTests {
    @Test(arguments: StoreEngine.all)
    func pagingWithALimitMissesNoChange(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let creds = try await w.consent.register(
            name: "Pager", purpose: "p", privacyPolicyURL: URL(string: "https://example.org/p")!, requestedTypes: [.clinical(.labResult)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        let view = try await w.consent.view(appID: creds.appID)
        let start = try await view.changes(AnchoredQuery(type: .labResult, anchor: nil)).anchor
        for i in 1...3 { try await w.importResources([Make.record(.labResult, id: "l\(i)")]) }
        _ = try await w.store.delete(source: "clinic", resourceType: .observation, identifier: "l1")
        var anchor = start
        var seen: [String] = []
        for _ in 0..<10 {
            let page = try await view.changes(AnchoredQuery(type: .labResult, anchor: anchor, limit: 1))
            seen += page.added.map { "+" + $0.fhirResource.identifier } + page.deleted.map { "-" + $0.identity.identifier }
            if page.added.isEmpty && page.deleted.isEmpty { break }
            #expect(page.anchor > anchor)
            anchor = page.anchor
        }
        // l1 was added and deleted since the start: only its deletion is a change now.
        #expect(seen == ["+l2", "+l3", "-l1"])
    }
}
