import ArgumentParser
import FHIR
import Foundation
import HealthArchive
import HealthImport
import HealthStoreCore

extension ImportCommand {
    /// The paths when every one is a zip (an export); `nil` when none is; a usage error when
    /// zips and other files are mixed (an export is imported whole, on its own).
    func exportPaths() throws -> [String]? {
        let zips = paths.filter { ExportArchive.looksLikeExport(path: $0) }
        if zips.isEmpty { return nil }
        guard zips.count == paths.count else { throw CommandFailure.usage("import an export (.zip) on its own, not with other files") }
        if source != nil || fhirVersion != nil { throw CommandFailure.usage("--source and --fhir-version do not apply to an export: it names its sources and versions") }
        return zips
    }

    /// Imports exports: each checked whole (manifest, SHA-256s, every line) before its first
    /// row is written; cards verified again and stored unverified when they fail.
    func importExports(_ zips: [String]) async throws {
        let store = try await storeOptions.open()
        var options = RecordImporter.Options()
        options.cardVerifier = try verification.verifier()
        options.dccVerifier = try verification.dccVerifier()
        options.verificationTime = verification.at == nil ? nil : verification.time()
        let importer = ExportImporter(store: store, options: options)
        var reports: [(String, ExportImporter.Report)] = []
        for zip in zips {
            let archive: ExportArchive
            do { archive = try ExportArchive(path: zip) } catch { throw CommandFailure.failed("\(zip): \(error.description)") }
            let bar = ProgressBar()
            do {
                let report = try await importer.importArchive(archive) { p in
                    bar.update(done: p.done, total: p.total, bytesDone: 0, bytesTotal: 0, label: p.label)
                }
                bar.finish()
                reports.append((zip, report))
            } catch let e as ArchiveError {
                bar.finish()
                throw CommandFailure.failed("\(zip): \(e.description)")
            } catch let e as HealthStoreError {
                bar.finish()
                throw CommandFailure.failed("\(zip): \(e.description)")
            } catch {
                bar.finish()
                throw CommandFailure.failed("\(zip): \(error)")
            }
        }
        if json {
            JSONOutput.print(.array(reports.map { Self.json($0.0, $0.1) }))
            return
        }
        for (zip, r) in reports {
            var table = TextTable("source", "inserted", "updated", "unchanged", "not-a-record")
            for s in r.sources {
                let o = s.outcome
                table.add(s.source.name, "\(o.inserted)", "\(o.updated)", "\(o.unchanged)", "\(o.notRecords)")
            }
            let t = r.totals
            table.add("total", "\(t.inserted)", "\(t.updated)", "\(t.unchanged)", "\(t.notRecords)")
            print("\(zip): export checked (manifest and SHA-256 of every file)")
            print(table.rendered)
            print("cards: \(r.cards.inserted) new, \(r.cards.unchanged + r.cards.updated) already stored; \(r.cardsVerified) verified, \(r.cardsUnverified) stored unverified")
            print("samples: \(r.samplesSaved) saved, \(r.samplesUnchanged) already stored")
        }
    }

    static func json(_ path: String, _ r: ExportImporter.Report) -> JSONValue {
        let sources: [JSONValue] = r.sources.map { s in
            .object(JSONObject([JSONMember("source", .string(s.source.identifier)), JSONMember("sourceName", .string(s.source.name))] + JSONOutput.outcome(s.outcome)))
        }
        return .object(
            JSONObject(
                [JSONMember("path", .string(path))] + JSONOutput.outcome(r.totals) + [
                    JSONMember("sources", .array(sources)),
                    JSONMember(
                        "cards",
                        .object(
                            JSONObject([
                                JSONMember("inserted", JSONOutput.int(r.cards.inserted)), JSONMember("unchanged", JSONOutput.int(r.cards.unchanged + r.cards.updated)),
                                JSONMember("verified", JSONOutput.int(r.cardsVerified)), JSONMember("unverified", JSONOutput.int(r.cardsUnverified)),
                            ]))),
                    JSONMember(
                        "samples", .object(JSONObject([JSONMember("saved", JSONOutput.int(r.samplesSaved)), JSONMember("unchanged", JSONOutput.int(r.samplesUnchanged))]))),
                ]))
    }
}
