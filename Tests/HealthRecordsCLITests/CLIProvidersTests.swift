import Foundation
import Testing
import TestSupport

/// Providers are named on the command line by their id or by the name they were given, in any
/// case: `providers add --name Sekmet` prints the id `sekmet`, and people type `Sekmet`.
@Suite struct CLIProvidersTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }

    func add(_ arguments: [String]) throws -> String {
        let r = try cli.run(["providers", "add", "--fhir-base", "https://fhir.sekmet.example/r4", "--client-id", "app"] + arguments)
        #expect(r.status == 0, "\(r.stderr)")
        return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aProviderIsFoundByItsNameOrIdInAnyCase() throws {
        #expect(try add(["--name", "Sekmet"]) == "sekmet")
        // Not yet signed in: the sync stops there, having found the provider by the name typed.
        for typed in ["Sekmet", "SEKMET", "sekmet"] {
            let sync = try cli.run(["sync", typed])
            #expect(sync.status == 1)
            #expect(sync.stderr.contains("sekmet needs you to sign in"), "\(typed): \(sync.stderr)")
            #expect(!sync.stderr.contains("no provider"), "\(typed): \(sync.stderr)")
        }
        let unknown = try cli.run(["sync", "Sekmett"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no provider Sekmett"), "\(unknown.stderr)")
        let removed = try cli.run(["providers", "remove", "SekMet"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.output.contains("removed sekmet"))
        #expect(try cli.run(["providers", "remove", "sekmet"]).status == 1)
    }

    @Test func aNameShapedLikeTwoProvidersIsAnErrorListingTheirIds() throws {
        #expect(try add(["--name", "Sekmet"]) == "sekmet")
        #expect(try add(["--name", "SEKMET", "--id", "sekmet-east"]) == "sekmet-east")
        // The exact id still names one.
        #expect(try cli.run(["sync", "sekmet"]).stderr.contains("sekmet needs you to sign in"))
        for command in [["sync", "Sekmet"], ["providers", "remove", "Sekmet"]] {
            let r = try cli.run(command)
            #expect(r.status == 1)
            #expect(r.stderr.contains("Sekmet names 2 providers; give one of their ids: sekmet, sekmet-east"), "\(command): \(r.stderr)")
        }
        let listed = try cli.run(["providers", "list", "--json"])
        #expect(listed.output.contains("sekmet-east") && listed.output.contains("\"sekmet\""), "nothing was removed: \(listed.output)")
    }
}
