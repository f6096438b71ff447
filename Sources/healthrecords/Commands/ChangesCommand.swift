import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "What was added, changed or deleted since an anchor (an anchored query).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Clinical type.")
    var type: ClinicalType?

    @Option(help: "The anchor returned by the previous call; omit for everything.")
    var anchor: Int64?

    @Option(help: "The most changes to return.")
    var limit: Int?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    @Option(help: "Query through this app's grants (the app's own anchors).")
    var asApp: String?

    func validate() throws {
        if let anchor, anchor < 0 { throw ValidationError("--anchor must not be negative") }
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() async throws {
        let store = try await storeOptions.open()
        let query = AnchoredQuery(type: type, anchor: anchor.map(QueryAnchor.init(rawValue:)), limit: limit)
        let result: AnchoredQueryResult
        if let asApp {
            let view = try await consentWork { try await ConsentManager(store: store).view(appID: asApp) }
            result = try await view.changes(query)
        } else {
            result = try await store.changes(query)
        }
        if json {
            let deleted: [JSONValue] = result.deleted.map { d in
                .object(JSONObject([
                    "source": .string(d.identity.source),
                    "resourceType": .string(d.identity.resourceType.rawValue),
                    "identifier": .string(d.identity.identifier),
                    "clinicalType": .string(d.clinicalType.name),
                    "deletedDate": JSONOutput.date(d.deletedDate),
                ]))
            }
            JSONOutput.print(.object(JSONObject([
                "added": .array(result.added.map(JSONOutput.record)),
                "deleted": .array(deleted),
                "anchor": .number(JSONNumber(uncheckedText: String(result.anchor.rawValue))),
            ])))
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
        print("anchor: \(result.anchor)")
    }
}
