import Foundation
import HealthArchive
import HealthStoreCore
import Hummingbird

/// "Download all my data": the signed-in person's whole store as the zip `healthrecords export`
/// writes and `healthrecords import` takes back (docs/backup.md).
///
/// The zip is written to a temporary owner-only file (the writer builds it whole, then renames
/// it into place) and sent from memory; the file is removed before the response goes out.
struct ExportRoutes {
    /// What an export holds: records, cards, samples, apps and grants.
    let store: any HealthStore

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/export.zip") { _, _ -> Response in
            let folder = FileManager.default.temporaryDirectory.path
            let path = (folder as NSString).appendingPathComponent("healthrecords-export-\(UUID().uuidString).zip")
            defer { unlink(path) }
            _ = try await ExportWriter(store: store, generator: "healthrecords serve").write(to: path)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let day = Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
            var response = Response(
                status: .ok, headers: [.contentType: "application/zip"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            PageHeaders.add(to: &response)
            response.headers[.contentDisposition] = "attachment; filename=\"health-records-\(day).zip\""
            return response
        }
    }
}
