import Foundation
import HealthImport
import HealthStoreCore
import Testing
import TestSupport

/// The report reads against the command that made it: files in the order of the paths given,
/// a folder's files in sorted path order at the folder's place, failures where they happened.
@Suite struct ImportOrderTests {
    @Test(arguments: ImportEngine.available) func reportsFilesInTheOrderOfItsArguments(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let b = try f.dir.write("in/b.json", Make.observation("b"))
        let z = try f.dir.write("in/a-folder/z.json", Make.observation("z"))
        let n = try f.dir.write("in/a-folder/m/n.json", Make.observation("n"))
        let c = try f.dir.write("in/a-folder/c.json", Make.immunization("c"))
        let a = try f.dir.write("in/a.json", Make.observation("a"))
        let missing = f.dir.path("in/missing.json")
        let report = await f.importer().importPaths([b, f.dir.path("in/a-folder"), missing, a])
        #expect(report.files.map(\.path) == [b, c, n, z, missing, a])
        #expect(report.files.map(\.status) == [.imported, .imported, .imported, .imported, .failed, .imported])
        #expect(report.totals.inserted == 5)
    }

    @Test(arguments: ImportEngine.available) func keepsCardFilesInTheirPlaceAndChunksAtTheirFirst(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let spec = FixtureFiles.url("vectors/shc-spec").path
        let card = "\(spec)/example-00-e-file.smart-health-card"
        let chunk = (0...2).map { "\(spec)/example-02-f-qr-code-numeric-value-\($0).txt" }
        let a = try f.dir.write("in/a.json", Make.observation("a"))
        let b = try f.dir.write("in/b.json", Make.observation("b"))
        let report = await f.cardImporter().importPaths([card, a, chunk[2], chunk[0], b, chunk[1]])
        #expect(report.files.map(\.path) == [card, a, "\(chunk[2]), \(chunk[0]), \(chunk[1])", b])
        #expect(report.succeeded, "\(report.files.compactMap(\.error))")
        #expect(report.totals.inserted == 4)
    }
}
