import ArgumentParser
import CardScanning
import FHIR
import Foundation
import HealthSharing
import HealthStoreCore
import HealthVocabulary
import QRCode
import SmartHealthLinks

struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share", abstract: "Share records with a clinician through SMART Health Links served by `serve`.",
        discussion: """
            `share create` makes a link (a QR code or shlink:/ text) to encrypted files the server \
            serves at --public-url: the International Patient Summary, a check-in bundle, records of \
            some types, or cards. The key is only in the link: the store keeps ciphertext (and, for a \
            long-term link, the key sealed with the store key). `share list`, `share log` and \
            `share revoke` follow what happened to each link.
            """,
        subcommands: [ShareCreateCommand.self, ShareListCommand.self, ShareLogCommand.self, ShareRevokeCommand.self])
}

/// A link's lifetime as typed: `90s`, `15m`, `2h`, `3d`, `2w`, or an instant.
enum LinkExpiry {
    static func parse(_ text: String, now: Date) throws(CommandFailure) -> Date {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last, let seconds = units[unit], let count = Int(text.dropLast()), count > 0 {
            return now.addingTimeInterval(TimeInterval(count) * seconds)
        }
        if let date = DateArgument(argument: text) { return date.instant }
        throw .usage("--expires takes a duration (90s, 15m, 2h, 3d, 2w) or a date, not \(text)")
    }
}

/// The link a command names: a handle, or the link itself (text, viewer URL or manifest URL).
enum LinkReference {
    static func find(_ text: String, in store: any HealthStore) async throws -> HostedLink? {
        if let link = try await store.hostedLink(handle: text.lowercased()) { return link }
        var url = text
        if let payload = try? SHLinkPayload(link: text) { url = payload.url }
        guard let range = url.range(of: LinkPublisher.pathPrefix, options: .backwards) else { return nil }
        let id = String(url[range.upperBound...].prefix { $0 != "?" && $0 != "#" })
        return try await store.hostedLink(lookupDigest: LinkPublisher.lookupDigest(id))
    }
}

struct ShareCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Make a SMART Health Link to some of the person's records.",
        discussion: """
            What: --summary (the IPS), --check-in (patient, problems, allergies, current \
            medications, immunizations, as the check-in profile's collection; alone), --types (a \
            collection of the summary's entries of those types), --cards (SMART Health Cards by id or \
            12-character prefix). How: --expires (required), --passcode-file or --passcode (flag P, \
            --attempts wrong guesses in the link's lifetime, 5 by default, at most 10), --long-term \
            (flag L: the files follow the records until the link expires). A single file without a \
            passcode is a direct-file (U) link unless --manifest. The link is printed once.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Share the International Patient Summary.")
    var summary = false

    @Flag(name: .customLong("check-in"), help: "Share a check-in bundle (alone).")
    var checkIn = false

    @Option(help: ArgumentHelp("Record types to share, comma-separated (condition, allergy, medication, immunization, lab-result, procedure, vital-sign).", valueName: "T,…"))
    var types: String?

    @Option(help: ArgumentHelp("Cards to share, comma-separated identifiers (or 12-character prefixes) as `cards` prints them.", valueName: "ID,…"))
    var cards: String?

    @Option(help: ArgumentHelp("When the link stops working: 90s, 15m, 2h, 3d, 2w or a date (at most 366 days).", valueName: "WHEN"))
    var expires: String

    @Option(name: .customLong("passcode-file"), help: ArgumentHelp("A file holding the passcode recipients must give (flag P).", valueName: "FILE"))
    var passcodeFile: String?

    @Flag(help: "Ask for a passcode on the terminal (flag P).")
    var passcode = false

    @Option(help: "Wrong passcodes the link takes in its lifetime (1–10).")
    var attempts: Int?

    @Flag(name: .customLong("long-term"), help: "A long-term link (flag L): its files follow the records until it expires.")
    var longTerm = false

    @Flag(help: "Serve a manifest even for a single file without a passcode (no U flag).")
    var manifest = false

    @Option(help: ArgumentHelp("A label recipients see (at most 80 characters).", valueName: "TEXT"))
    var label: String?

    @Option(name: .customLong("public-url"), help: ArgumentHelp("The address `serve --public-url` names ($HEALTHRECORDS_PUBLIC_URL).", valueName: "URL"))
    var publicURL: String?

    @Option(help: ArgumentHelp("The viewer URL put before the link (VIEWER#shlink:/…), as the QR code holds it; by default the server's own (PUBLIC_URL/view).", valueName: "URL"))
    var viewer: String?

    @Flag(name: .customLong("no-viewer"), help: "Print and draw the bare shlink:/ link, without a viewer.")
    var noViewer = false

    @Option(name: .customLong("qr-png"), help: ArgumentHelp("Write the link's QR code (level M) as PNG.", valueName: "FILE"))
    var qrPNG: String?

    @Option(name: .customLong("qr-svg"), help: ArgumentHelp("Write the link's QR code (level M) as SVG.", valueName: "FILE"))
    var qrSVG: String?

    @Option(name: .customLong("module-size"), help: "Pixels per QR module (1–100).")
    var moduleSize: Int = 4

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func validate() throws {
        if passcode && passcodeFile != nil { throw ValidationError("give --passcode or --passcode-file, not both") }
        if noViewer && viewer != nil { throw ValidationError("give --viewer or --no-viewer, not both") }
        if attempts != nil && !passcode && passcodeFile == nil { throw ValidationError("--attempts goes with a passcode") }
        if let attempts, !(1...LinkPasscode.maximumAttempts).contains(attempts) { throw ValidationError("--attempts must be 1 to \(LinkPasscode.maximumAttempts)") }
        if !(1...100).contains(moduleSize) { throw ValidationError("--module-size must be between 1 and 100") }
    }

    func run() async throws {
        guard let base = publicURL ?? ProcessInfo.processInfo.environment["HEALTHRECORDS_PUBLIC_URL"], !base.isEmpty else {
            throw CommandFailure.usage("give --public-url (the address `serve --public-url` names) or set HEALTHRECORDS_PUBLIC_URL")
        }
        let content = HostedLinkContent(
            summary: summary, checkIn: checkIn, types: Self.list(types), cards: Self.list(cards))
        let store = try await storeOptions.open()
        let now = store.clock.now
        let expiry = try LinkExpiry.parse(expires, now: now)
        let secret = try readPasscode()
        var options = LinkOptions(
            expires: expiry, passcode: secret, attempts: attempts ?? LinkPasscode.defaultAttempts, longTerm: longTerm, direct: manifest ? false : nil, label: label)
        if let cost = ProcessInfo.processInfo.environment["HEALTHRECORDS_TEST_KDF"], cost == "cheap" { options.kdf = .testing }
        _ = try? await store.endExpiredHostedLinks(at: now)
        let published: PublishedLink
        do {
            published = try await LinkPublisher(store: store, baseURL: base).publish(content, options: options, now: now)
        } catch {
            throw error.isUsage ? CommandFailure.usage("\(error.code): \(error)") : CommandFailure.failed("\(error.code): \(error)")
        }
        let viewerURL = noViewer ? nil : (viewer ?? (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/view")
        if longTerm && !store.isEncrypted {
            FileHandle.standardError.write(Data("warning: this store is not encrypted, so the long-term link's key is kept in the clear (healthrecords encrypt)\n".utf8))
        }
        let shown = viewerURL.map { published.payload.link(viewer: $0) } ?? published.payload.link
        var written: [(String, Int)] = []
        if qrPNG != nil || qrSVG != nil {
            let code: QRMatrix
            do { code = try CardQRCode.encode(shown, level: .M) } catch { throw CommandFailure.usage("the link does not fit a QR code: \(error)") }
            try QRFiles.write(code, png: qrPNG, svg: qrSVG, moduleSize: moduleSize)
            for path in [qrPNG, qrSVG].compactMap({ $0 }) { written.append((path, code.version.number)) }
        }
        let link = published.link
        if json {
            JSONOutput.print(.object(JSONObject([
                JSONMember("handle", .string(link.handle)), JSONMember("link", .string(published.payload.link)),
                JSONMember("viewerLink", JSONOutput.string(viewerURL.map { published.payload.link(viewer: $0) })),
                JSONMember("url", .string(published.payload.url)), JSONMember("flags", .string(link.flagLetters)),
                JSONMember("expires", .string(InstantText.string(link.expires))), JSONMember("label", JSONOutput.string(link.label)),
                JSONMember("attempts", link.passcode ? JSONOutput.int(link.passcodeLimit) : .null),
                JSONMember("files", .array(published.files.map { f in
                    .object(JSONObject([
                        JSONMember("contentType", .string(f.contentType)), JSONMember("title", .string(f.title)), JSONMember("bytes", JSONOutput.int(f.plainBytes)),
                        JSONMember("compressed", .bool(f.compressed)),
                    ]))
                })),
                JSONMember("qr", .array(written.map { .string($0.0) })),
            ])))
            return
        }
        print("link: \(published.payload.link)")
        if let viewerURL { print("viewer: \(published.payload.link(viewer: viewerURL))") }
        let flags = link.flagLetters.isEmpty ? "none" : link.flagLetters
        print("handle: \(link.handle)  flags: \(flags)\(link.passcode ? " (\(link.passcodeLimit) attempts)" : "")  expires: \(InstantText.string(link.expires))")
        for f in published.files {
            print("file: \(f.contentType), \(f.title), \(f.plainBytes) bytes\(f.compressed ? ", compressed" : "")")
        }
        for (path, version) in written { print("qr: written to \(path) (version \(version), level M)") }
        print(link.longTerm ? "The key is kept sealed with the store key, so the files can follow the records." : "Shown once: the server keeps only ciphertext.")
    }

    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func readPasscode() throws -> String? {
        if let passcodeFile {
            guard let text = try? String(contentsOfFile: passcodeFile, encoding: .utf8) else { throw CommandFailure.usage("cannot read the passcode file \(passcodeFile)") }
            let trimmed = text.trimmingCharacters(in: .newlines)
            if trimmed.isEmpty { throw CommandFailure.usage("the passcode file \(passcodeFile) is empty") }
            return trimmed
        }
        guard passcode else { return nil }
        guard let first = PassphrasePrompt.read("Passcode: ") else { throw CommandFailure.usage("--passcode needs a terminal; give --passcode-file") }
        guard PassphrasePrompt.read("Repeat passcode: ") == first else { throw CommandFailure.usage("the passcodes differ") }
        return first
    }
}

struct ShareListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the links the person made (active ones unless --all).")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Include revoked, expired and disabled links.")
    var all = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let now = store.clock.now
        _ = try? await store.endExpiredHostedLinks(at: now)
        let links = try await store.hostedLinks(includeEnded: all)
        var rows: [(HostedLink, [LinkAccess])] = []
        for link in links { rows.append((link, try await store.linkAccessLog(handle: link.handle, newestFirst: 1_000_000))) }
        if json {
            JSONOutput.print(.array(rows.map { link, log in
                var members = [
                    JSONMember("handle", .string(link.handle)), JSONMember("label", JSONOutput.string(link.label)), JSONMember("flags", .string(link.flagLetters)),
                    JSONMember("created", .string(InstantText.string(link.created))), JSONMember("expires", .string(InstantText.string(link.expires))),
                    JSONMember("state", .string(link.state(at: now).rawValue)), JSONMember("accesses", JSONOutput.int(log.count)),
                    JSONMember("lastAccess", JSONOutput.string(log.first.map { InstantText.string($0.date) })),
                    JSONMember("files", .array(link.files.map { f in
                        .object(JSONObject([
                            JSONMember("contentType", .string(f.contentType)), JSONMember("lastUpdated", .string(InstantText.string(f.updated))),
                            JSONMember("bytes", JSONOutput.int(f.byteCount)),
                        ]))
                    })),
                ]
                if link.passcode { members.append(JSONMember("attemptsLeft", JSONOutput.int(link.attemptsLeft))) }
                return .object(JSONObject(members))
            }))
            return
        }
        var table = TextTable("handle", "flags", "label", "created", "expires", "state", "files", "accesses", "last access")
        for (link, log) in rows {
            table.add(
                link.handle, link.flagLetters.isEmpty ? "-" : link.flagLetters, link.label ?? "-", InstantText.string(link.created), InstantText.string(link.expires),
                link.state(at: now).rawValue, "\(link.files.count)", "\(log.count)", log.first.map { InstantText.string($0.date) } ?? "-")
        }
        print(table.rendered)
        print("\(links.count) link\(links.count == 1 ? "" : "s")")
    }
}

struct ShareLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "log", abstract: "Every access to a link: when, which recipient, what was served or refused.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The link: its handle, or its shlink:/ text, viewer URL or manifest URL.")
    var link: String

    @Option(help: "The most entries, newest first.")
    var limit = 100

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        guard let found = try await LinkReference.find(link, in: store) else { throw CommandFailure.failed("no link \(link)") }
        let log = try await store.linkAccessLog(handle: found.handle, newestFirst: max(0, limit))
        if json {
            JSONOutput.print(.array(log.map { e in
                .object(JSONObject([
                    JSONMember("date", .string(InstantText.string(e.date))), JSONMember("recipient", JSONOutput.string(e.recipient)),
                    JSONMember("event", .string(e.event.rawValue)), JSONMember("status", JSONOutput.int(e.status)),
                    JSONMember("file", e.ordinal.map { JSONOutput.int($0) } ?? .null),
                ]))
            }))
            return
        }
        var table = TextTable("date", "recipient", "event", "status", "file")
        for e in log { table.add(InstantText.string(e.date), e.recipient ?? "-", e.event.rawValue, "\(e.status)", e.ordinal.map { "\($0 + 1)" } ?? "-") }
        print(table.rendered)
        print("\(log.count) access\(log.count == 1 ? "" : "es") of \(found.handle)\(found.label.map { " (\"\($0)\")" } ?? "")")
    }
}

struct ShareRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a link now: its files, key and locations are deleted.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The link: its handle, or its shlink:/ text, viewer URL or manifest URL.")
    var link: String

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        guard let found = try await LinkReference.find(link, in: store) else { throw CommandFailure.failed("no link \(link)") }
        let outcome = try await store.revokeHostedLink(handle: found.handle, at: store.clock.now)
        let name = found.handle + (found.label.map { " (\"\($0)\")" } ?? "")
        let message: String
        let state: String
        switch outcome {
        case .revoked:
            (state, message) = ("revoked", "revoked \(name): files, key and locations deleted; the link answers 404 now")
        case .alreadyEnded(let date):
            (state, message) = ("ended", "\(name) had ended already (\(InstantText.string(date)))")
        case .missing:
            throw CommandFailure.failed("no link \(link)")
        }
        if json {
            JSONOutput.print(.object(JSONObject([JSONMember("handle", .string(found.handle)), JSONMember("outcome", .string(state))])))
        } else {
            print(message)
        }
    }
}
