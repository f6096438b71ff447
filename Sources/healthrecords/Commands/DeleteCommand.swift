import ArgumentParser
import FHIR
import Foundation
import HealthStoreCore

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete one resource, or everything from a source.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Source identifier.")
    var source: String

    @Option(help: "FHIR resource type (with --id, one resource; alone, all of that type).")
    var resourceType: String?

    @Option(help: "Resource id (needs --resource-type).")
    var id: String?

    func validate() throws {
        if id != nil, resourceType == nil { throw ValidationError("--id needs --resource-type") }
    }

    func run() async throws {
        let store = try await storeOptions.open()
        let n = try await store.delete(source: source, resourceType: resourceType.map(FHIRResourceType.init(rawValue:)), identifier: id)
        if n == 0 { throw CommandFailure.failed("nothing matched in source \(source)") }
        print("deleted \(n) resource\(n == 1 ? "" : "s")")
    }
}
