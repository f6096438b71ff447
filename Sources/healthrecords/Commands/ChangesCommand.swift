import ArgumentParser
import ClinicalRecords
import Foundation
import HealthStoreCore
import HealthVocabulary

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "What was added, changed or deleted since an anchor (an anchored query).",
        discussion: """
            Anchors are the store's positions ("120"); with --as-app they are the app's own opaque \
            tokens, exactly as GET /changes hands them to the app. --json writes what GET /changes \
            returns.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Clinical type.", completion: .list(ClinicalType.allCases.map(\.name)))
    var type: String?

    @Option(help: "The anchor returned by the previous call; omit for everything.")
    var anchor: String?

    @Option(help: "The most changes to return.")
    var limit: String?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    @Option(help: "Query through this app's grants (the app's own anchors).")
    var asApp: String?

    func run() async throws {
        var p = OptionParameters()
        p.set(.type, type)
        p.set(.anchor, anchor)
        p.set(.limit, limit)
        let store = try await storeOptions.open()
        var view: AppView?
        if let asApp { view = try await consentWork { try await ConsentManager(store: store).view(appID: asApp) } }
        let anchors = view.map(AnchorCoding.app) ?? .store
        let query = try p.parse { p throws(ParameterError) in try AnchoredQuery(parameters: p, anchors: anchors) }
        let result: AnchoredQueryResult
        if let view {
            result = try await view.changes(query)
            try await store.flushAudit()
        } else {
            result = try await store.changes(query)
        }
        if json {
            JSONOutput.print(RecordJSON.changes(result, anchors: anchors))
            return
        }
        var table = TextTable("change", "type", "name", "resource", "source")
        for r in result.added {
            table.add("added", r.clinicalType.name, r.displayName, "\(r.fhirResource.resourceType)/\(r.fhirResource.identifier)", r.source.identifier)
        }
        for d in result.deleted {
            table.add("deleted", d.clinicalType.name, "", "\(d.identity.resourceType)/\(d.identity.identifier)", d.identity.source)
        }
        print(table.rendered)
        print("anchor: \(anchors.encode(result.anchor))")
    }
}
