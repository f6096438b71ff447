import ClinicalRecords
import Foundation
import HealthArchive
import HealthImport
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// "Download all my data": `GET /export.zip` on the person's pages is the person's whole
/// export, behind sign-in, and `import` takes it back.
@Suite struct ExportDownloadTests {
    @Test(arguments: ServerEngine.all)
    func downloadsTheWholeStoreAsAnExport(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "l1", text: "Glucose"), Fixtures.patient], source: "North Clinic")
        try await w.test { client in
            let anonymous = try await client.call(.get, "/export.zip")
            #expect(anonymous.status == .seeOther, "the export is the person's: sign in first")
            let cookie = try await client.signIn()
            let r = try await client.call(.get, "/export.zip", cookie: cookie)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/zip")
            #expect(r.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"health-records-") == true)
            #expect(r.headers[.cacheControl] == "no-store")
            let dir = TemporaryDirectory()
            let path = try dir.write("download.zip", Data(r.body.readableBytesView))
            let archive = try ExportArchive(path: path)
            #expect(archive.sources.map(\.line.name) == ["North Clinic"])
            #expect(archive.manifest.counts["resources"] == 2)
        }
    }
}
