import FHIR
import Foundation
import Testing
import TestSupport

/// `healthrecords demo` builds a store from the shipped Demo/ folder alone (a copy of it, in
/// a folder with nothing else beside it, as on a clean clone without ../shared).
@Suite struct CLIDemoTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Demo")

    @Test func buildsTheDemoStoreFromACopyOfDemo() throws {
        let dir = TemporaryDirectory()
        let copy = dir.url.appendingPathComponent("Demo")
        try FileManager.default.copyItem(at: Self.demo, to: copy)
        let store = dir.path("demo.sqlite")
        let cli = CommandRunner(environment: ["HEALTHRECORDS_STORE": store])
        let first = try cli.run(["demo", "--from", copy.path, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try JSONReader().read(first.stdout)
        let providers = report["providers"]?.arrayValue ?? []
        #expect(providers.count == 3)
        for p in providers { #expect((p["inserted"]?.numberValue?.intValue ?? 0) > 0, "\(p)") }
        #expect(report["cards"]?["inserted"]?.numberValue?.intValue == 1)
        #expect(report["samplesSaved"]?.numberValue?.intValue == 5)

        let sources = try cli.run(["sources"])
        #expect(sources.output.contains("Harbor Community Clinic"))
        let cards = try JSONReader().read(try cli.run(["cards", "--json"]).stdout)
        #expect(cards.arrayValue?.first?["status"]?.stringValue == "verified")
        let samples = try cli.run(["samples", "verify", "--certificate", copy.appendingPathComponent("samples/device-certificate.pem").path])
        #expect(samples.status == 0, "\(samples.output) \(samples.stderr)")
        let patients = try JSONReader().read(try cli.run(["records", "--json"]).stdout)
        #expect((patients.arrayValue?.count ?? 0) > 50)

        // Again: nothing changes. Into a store holding other data: refused unless --force.
        let again = try JSONReader().read(try cli.run(["demo", "--from", copy.path, "--json"]).stdout)
        #expect(again["providers"]?.arrayValue?.allSatisfy { $0["inserted"]?.numberValue?.intValue == 0 } == true)
        #expect(try cli.run(["import", FixtureFiles.url("data/fhir/r4-examples/observation-example.json").path, "--source", "other"]).status == 0)
        let refused = try cli.run(["demo", "--from", copy.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--force"))
        #expect(try cli.run(["demo", "--from", copy.path, "--force"]).status == 0)
        #expect(!(try cli.run(["sources"]).output.contains("other")))
    }
}
