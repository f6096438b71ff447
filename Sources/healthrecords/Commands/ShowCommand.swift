import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one resource by source, resource type and id.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Source identifier.")
    var source: String

    @Option(help: "FHIR resource type.")
    var resourceType: String

    @Option(help: "Resource id.")
    var id: String

    @Flag(help: "Write the resource's stored bytes exactly as imported.")
    var raw = false

    @Flag(help: "Print machine-readable JSON, as GET /records/{source}/{resourceType}/{id} answers.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let identity = RecordIdentity(source: source, resourceType: FHIRResourceType(resourceType), identifier: id)
        guard let stored = try await store.resource(identity) else {
            throw CommandFailure.failed("no \(resourceType)/\(id) from source \(source)")
        }
        if raw {
            FileHandle.standardOutput.write(stored.resource.data)
            return
        }
        if json {
            JSONOutput.print(RecordJSON.resource(stored))
            return
        }
        print("\(stored.displayName)")
        print("  type:          \(stored.clinicalType?.name ?? "context (not a clinical record)")")
        print("  resource:      \(resourceType)/\(id) (FHIR \(stored.resource.fhirVersion))")
        print("  source:        \(stored.source.name)")
        print("  clinical date: \(stored.clinicalDate?.text ?? "-")")
        print("  added:         \(InstantText.string(stored.addedDate))")
        let json = try stored.resource.json()
        print(JSONWriter.pretty(.object(json)))
    }
}
