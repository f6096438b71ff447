import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import FHIR files and folders (Bundles, resources, NDJSON bulk exports), SMART Health Cards and SMART Health Links.",
        discussion: """
            Each file lands in one transaction: all of it or nothing. Folders are searched recursively \
            for *.json, *.ndjson, *.smart-health-card, *.png and *.jpg; there, JSON that is plainly not FHIR is \
            skipped. Without --source, each file is its own source, shown under --source-name, else the \
            organization the file's bundle names (its encounters' provider), else the file name. SMART Health \
            Cards (.smart-health-card files, PNG images of their QR codes, shc:/ text, JWS; chunk files \
            given together form one card) are read as verify reads them, verified on the way in, and \
            refused when invalid unless --allow-unverified is given. Files are reported in the order \
            given. A SMART Health Link (shlink:/… text, or a viewer URL with #shlink:/…) is followed: the \
            manifest is asked for as --recipient, with --passcode-file (or a prompt) for a passcode link, \
            each file decrypted with the link's key, its cards verified and its FHIR content imported as \
            a source named after the link's label. Only public addresses are reached unless \
            --allow-loopback. Exit status: 0 when every file imported, 1 when any failed (the others \
            still land), 2 for usage errors.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "Files or folders to import, or SMART Health Links.")
    var paths: [String]

    @Option(help: "The source (institution) to file every record under.")
    var source: String?

    @Option(name: .customLong("source-name"), help: ArgumentHelp("The name people see for the source (e.g. the organization's name).", valueName: "NAME"))
    var sourceName: String?

    @Option(help: "Read content as this FHIR version (e.g. 1.0.2 or 4.0.1) instead of detecting it.")
    var fhirVersion: String?

    @Flag(help: "Store SMART Health Cards that fail verification, marked unverified.")
    var allowUnverified = false

    @OptionGroup(title: "SMART Health Card verification") var verification: CardVerificationOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    @Option(help: "Who is asking, as a SMART Health Link's sharer sees it in the link's access log.")
    var recipient = "HealthRecords"

    @Option(name: .customLong("passcode-file"), help: ArgumentHelp("A file holding a passcode link's passcode (else it is asked for).", valueName: "FILE"))
    var passcodeFile: String?

    @Flag(name: .customLong("allow-loopback"), help: "Follow links to this machine, over http too (tests, a local server).")
    var allowLoopback = false

    @Flag(name: .customLong("connect-access"), help: "Keep a link's API access grant as a provider connection (then: healthrecords sync ID).")
    var connectAccess = false

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one file, folder or link") }
        if recipient.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--recipient must not be empty") }
        if json, paths.contains(where: Self.isLink), paths.contains(where: { !Self.isLink($0) }) {
            throw ValidationError("with --json, give either files and folders or links, not both (one JSON document each)")
        }
        if let fhirVersion, (try? FHIRVersion(versionString: fhirVersion)) == nil {
            throw ValidationError("--fhir-version must look like 4.0.1")
        }
    }

    func run() async throws {
        if let exports = try exportPaths() { return try await importExports(exports) }
        let store = try await storeOptions.open()
        var options = RecordImporter.Options()
        options.source = source.map { RecordSource(identifier: $0, name: sourceName) }
        options.sourceName = sourceName
        options.fhirVersion = try fhirVersion.map { try FHIRVersion(versionString: $0) }
        options.cardVerifier = try verification.verifier()
        options.dccVerifier = try verification.dccVerifier()
        options.allowUnverified = allowUnverified
        options.verificationTime = verification.at == nil ? nil : verification.time()
        let importer = RecordImporter(store: store, options: options)
        var links = paths.filter(Self.isLink)
        var files: [String] = []
        for path in paths where !Self.isLink(path) {
            // A picture of a link's QR code is the link; any other picture is a card's.
            let inImage = Self.links(inImage: path)
            if inImage.isEmpty { files.append(path) } else { links += inImage }
        }
        // Links and files in one command: the links are reported first, then the files.
        let linksImported = links.isEmpty ? true : try await importLinks(links, into: importer)
        if files.isEmpty {
            if !linksImported { throw ExitCode(1) }
            return
        }
        try await importFiles(files, importer, linksImported: linksImported)
    }

    private func importFiles(_ files: [String], _ importer: RecordImporter, linksImported: Bool) async throws {
        let bar = ProgressBar()
        let report = await importer.importPaths(files) { p in
            bar.update(done: p.filesDone, total: p.filesTotal, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal, label: p.lastFile.path)
        }
        bar.finish()
        if json { printJSON(report) } else { printTable(report) }
        if !report.succeeded || !linksImported { throw ExitCode(1) }
    }

    private func printTable(_ report: ImportReport) {
        var table = TextTable("file", "status", "inserted", "updated", "unchanged", "not-a-record")
        for f in report.files {
            let o = f.outcome
            table.add(f.path, f.status.rawValue, "\(o.inserted)", "\(o.updated)", "\(o.unchanged)", "\(o.notRecords)")
        }
        let t = report.totals
        table.add("total", "\(report.files.count - report.failed - report.skipped) imported", "\(t.inserted)", "\(t.updated)", "\(t.unchanged)", "\(t.notRecords)")
        print(table.rendered)
        for f in report.files where f.status != .imported {
            let line = "\(f.status == .failed ? "failed" : "skipped"): \(f.path): \(f.error?.description ?? "")"
            if f.status == .failed {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            } else {
                print(line)
            }
        }
        if report.failed > 0 || report.skipped > 0 {
            print("\(report.failed) failed, \(report.skipped) skipped")
        }
    }

    private func printJSON(_ report: ImportReport) {
        let t = report.totals
        var files: [JSONValue] = []
        for f in report.files {
            var members = [
                JSONMember("path", .string(f.path)),
                JSONMember("status", .string(f.status.rawValue)),
                JSONMember("source", JSONOutput.string(f.source)),
            ]
            members += JSONOutput.outcome(f.outcome)
            members.append(JSONMember("error", JSONOutput.string(f.error?.description)))
            files.append(.object(JSONObject(members)))
        }
        var top = JSONOutput.outcome(t)
        top += [
            JSONMember("skipped", JSONOutput.int(report.skipped)),
            JSONMember("failed", JSONOutput.int(report.failed)),
            JSONMember("files", .array(files)),
        ]
        JSONOutput.print(.object(JSONObject(top)))
    }
}
