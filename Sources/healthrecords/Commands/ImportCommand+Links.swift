import FHIR
import Foundation
import HealthImport
import HealthSharing
import NetworkAddresses
import ProviderSync
import QRCode
import SmartHealthLinks

extension ImportCommand {
    /// Whether an argument is a SMART Health Link rather than a path.
    static func isLink(_ argument: String) -> Bool { SHLinkPayload.isLink(argument) }

    /// The links in the QR codes of an image given as an argument (a photo of a link's QR code);
    /// empty for anything else, which is then imported as a file (a card's QR code, say).
    static func links(inImage path: String) -> [String] {
        let ext = (path as NSString).pathExtension.lowercased()
        guard ["png", "jpg", "jpeg"].contains(ext), let data = FileManager.default.contents(atPath: path),
            let codes = try? QRReader.read(imageData: data)
        else { return [] }
        return codes.map(\.text).filter(isLink)
    }

    /// Follows each link and imports what it holds; `true` when everything imported.
    func importLinks(_ texts: [String], into importer: RecordImporter) async throws -> Bool {
        let fetcher = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: allowLoopback))
        let links = SharedLinkImporter(
            importer: importer, providers: connectAccess ? ProviderDirectory(store: importer.store, clock: { importer.store.clock.now }) : nil,
            allowLoopback: allowLoopback)
        var succeeded = true
        var reports: [JSONValue] = []
        for (number, text) in texts.enumerated() {
            let name = "link \(number + 1)"
            do {
                let link: SHLinkPayload
                do { link = try SHLinkPayload(link: text) } catch { throw SharedLinkError.link(error) }
                for warning in link.warnings { FileHandle.standardError.write(Data("\(name): warning \(warning.code): \(warning)\n".utf8)) }
                let passcode = link.flags.contains(.passcode) ? try linkPasscode(for: link) : nil
                let files = try await fetcher.fetch(link, recipient: recipient, passcode: passcode)
                let report = await links.importFiles(files, from: link)
                succeeded = succeeded && report.succeeded
                if json { reports.append(Self.json(report, name: name, label: link.label)) } else { Self.print(report, name: name, label: link.label) }
            } catch let error as SharedLinkError {
                succeeded = false
                if json {
                    reports.append(.object(JSONObject([
                        JSONMember("link", .string(name)), JSONMember("error", .string(error.code)), JSONMember("message", .string(error.description)),
                    ])))
                } else {
                    FileHandle.standardError.write(Data("failed: \(name): \(error.code): \(error)\n".utf8))
                }
            }
        }
        if json { JSONOutput.print(.object(JSONObject([JSONMember("links", .array(reports))]))) }
        return succeeded
    }

    /// The passcode of a `P` link: from `--passcode-file`, else asked for on the terminal.
    private func linkPasscode(for link: SHLinkPayload) throws -> String {
        if let passcodeFile {
            guard let text = try? String(contentsOfFile: passcodeFile, encoding: .utf8) else {
                throw CommandFailure.failed("cannot read the passcode file \(passcodeFile)")
            }
            return text.trimmingCharacters(in: .newlines)
        }
        let label = link.label.map { " for \"\($0)\"" } ?? ""
        guard let typed = PassphrasePrompt.read("Passcode\(label): "), !typed.isEmpty else {
            throw CommandFailure.failed("the link needs a passcode: give --passcode-file or run on a terminal")
        }
        return typed
    }

    private static func print(_ report: SharedLinkReport, name: String, label: String?) {
        Swift.print("\(name)\(label.map { " (\($0))" } ?? ""): \(report.files.count) file\(report.files.count == 1 ? "" : "s")")
        for file in report.files {
            let what = "  file \(file.index + 1) (\(file.contentType ?? "no content type"))"
            switch file.outcome {
            case .records(let result):
                if result.status == .imported {
                    let o = result.outcome
                    Swift.print("\(what): imported into \(result.source ?? "?"): \(o.inserted) inserted, \(o.updated) updated, \(o.unchanged) unchanged")
                } else {
                    FileHandle.standardError.write(Data("\(what): failed: \(result.error?.description ?? "")\n".utf8))
                }
            case .cards(let cards):
                for card in cards {
                    let state = card.card.isValid ? (card.stored ? "verified and added" : "verified, already stored") : "not valid: " + card.card.errors.map(\.description).joined(separator: "; ")
                    Swift.print("\(what): card from \(card.card.issuer): \(state)")
                }
            case .connected(let id, let base):
                Swift.print("\(what): connected as provider \(id) (\(base)); next: healthrecords sync \(id)")
            case .skipped(let reason):
                Swift.print("\(what): skipped: \(reason)")
            case .failed(let reason):
                FileHandle.standardError.write(Data("\(what): failed: \(reason)\n".utf8))
            }
        }
    }

    private static func json(_ report: SharedLinkReport, name: String, label: String?) -> JSONValue {
        let files: [JSONValue] = report.files.map { file in
            var members = [JSONMember("index", JSONOutput.int(file.index)), JSONMember("contentType", JSONOutput.string(file.contentType))]
            switch file.outcome {
            case .records(let result):
                members += [JSONMember("status", .string(result.status.rawValue)), JSONMember("source", JSONOutput.string(result.source))]
                members += JSONOutput.outcome(result.outcome)
                members.append(JSONMember("error", JSONOutput.string(result.error?.description)))
            case .cards(let cards):
                members.append(JSONMember("status", .string("cards")))
                members.append(JSONMember("cards", .array(cards.map { card in
                    .object(JSONObject([
                        JSONMember("issuer", .string(card.card.issuer)), JSONMember("valid", .bool(card.card.isValid)),
                        JSONMember("stored", .bool(card.stored)), JSONMember("errors", .array(card.card.errors.map { .string($0.code.rawValue) })),
                    ]))
                })))
            case .connected(let id, let base):
                members += [JSONMember("status", .string("connected")), JSONMember("provider", .string(id)), JSONMember("fhirBase", .string(base))]
            case .skipped(let reason):
                members += [JSONMember("status", .string("skipped")), JSONMember("reason", .string(reason))]
            case .failed(let reason):
                members += [JSONMember("status", .string("failed")), JSONMember("reason", .string(reason))]
            }
            return .object(JSONObject(members))
        }
        return .object(JSONObject([
            JSONMember("link", .string(name)), JSONMember("label", JSONOutput.string(label)), JSONMember("succeeded", .bool(report.succeeded)),
            JSONMember("files", .array(files)),
        ]))
    }
}
