import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import Testing
import TestSupport

/// A file's source is shown under the organization it came from, not the file's name.
@Suite struct SourceNameTests {
    static let bundle = #"""
        {"resourceType":"Bundle","type":"collection","entry":[
          {"fullUrl":"urn:uuid:org-1","resource":{"resourceType":"Organization","id":"org-1","name":"Lab Only Inc"}},
          {"fullUrl":"urn:uuid:org-2","resource":{"resourceType":"Organization","id":"org-2","identifier":[{"system":"https://example.org","value":"H2"}],"name":"Saint Anne's Hospital"}},
          {"fullUrl":"urn:uuid:e1","resource":{"resourceType":"Encounter","id":"e1","status":"finished","class":{"code":"AMB"},"serviceProvider":{"reference":"urn:uuid:org-2"}}},
          {"fullUrl":"urn:uuid:e2","resource":{"resourceType":"Encounter","id":"e2","status":"finished","class":{"code":"AMB"},"serviceProvider":{"reference":"Organization?identifier=https://example.org|H2"}}},
          {"fullUrl":"urn:uuid:c1","resource":{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"onsetDateTime":"2020-01-01"}}
        ]}
        """#

    @Test(arguments: ImportEngine.available) func aBundleIsNamedAfterItsEncountersProvider(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let path = try f.dir.write("in/Pat_Doe_1234.json", Self.bundle)
        #expect(await f.importer().importPaths([path]).failed == 0)
        let sources = try await f.store.sources()
        #expect(sources.map(\.identifier) == ["Pat_Doe_1234.json"])
        #expect(sources.map(\.name) == ["Saint Anne's Hospital"])
        let records = try await f.store.records(RecordQuery(type: .condition))
        #expect(records.map(\.source.name) == ["Saint Anne's Hospital"])

        // A name given on import wins, and re-importing renames the source.
        var options = RecordImporter.Options()
        options.sourceName = "Dr. Who's Practice"
        #expect(await RecordImporter(store: f.store, options: options).importPaths([path]).failed == 0)
        #expect(try await f.store.sources().map(\.name) == ["Dr. Who's Practice"])
    }

    @Test(arguments: ImportEngine.available) func withoutAnOrganizationTheFileNameStays(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let path = try f.dir.write("in/plain.json", Make.observation("o1"))
        #expect(await f.importer().importPaths([path]).failed == 0)
        #expect(try await f.store.sources().map(\.name) == ["plain.json"])
    }
}
