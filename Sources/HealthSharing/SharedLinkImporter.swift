import CardScanning
import FHIR
import Foundation
import HealthImport
import ProviderSync
import SmartHealthLinks

/// Imports the files behind a SMART Health Link through the one way data enters (HealthImport):
/// SMART Health Cards are verified and stored as cards, FHIR content (an IPS, a check-in
/// bundle, any resource) lands as one source named after the link's label.
public struct SharedLinkImporter: Sendable {
    /// The importer the files go through.
    public let importer: RecordImporter
    /// Where an API access grant becomes a provider connection; `nil` to only report grants.
    public let providers: ProviderDirectory?
    /// Whether a grant's FHIR server may be on this machine (over http too).
    public let allowLoopback: Bool

    /// Makes an importer over a record importer (its store, trust policy and options); with
    /// `providers`, access grants are kept as provider connections.
    public init(importer: RecordImporter, providers: ProviderDirectory? = nil, allowLoopback: Bool = false) {
        self.importer = importer
        self.providers = providers
        self.allowLoopback = allowLoopback
    }

    /// The source name FHIR content from a link is filed under: its label, else its host.
    public static func sourceName(for link: SHLinkPayload) -> String {
        if let label = link.label?.trimmingCharacters(in: .whitespacesAndNewlines), !label.isEmpty { return label }
        return "Shared link from " + (URL(string: link.url)?.host ?? "an unknown server")
    }

    /// Imports each file by its content type; a file without one (a `U` link whose JWE names
    /// none) by what its JSON holds.
    public func importFiles(_ files: [SharedLinkFile], from link: SHLinkPayload) async -> SharedLinkReport {
        var report = SharedLinkReport()
        for file in files {
            report.files.append(SharedLinkReport.File(index: file.index, contentType: file.contentType, outcome: await outcome(of: file, link)))
        }
        return report
    }

    private func outcome(of file: SharedLinkFile, _ link: SHLinkPayload) async -> SharedLinkReport.Outcome {
        switch file.contentType.map({ $0.lowercased() }) ?? Self.sniff(file.content) {
        case SHLContentType.smartHealthCard:
            let readings = CardInputReader.read([(file.content, "file \(file.index + 1) of the link")])
            guard !readings.isEmpty else { return .failed(reason: "no SMART Health Card could be read from it") }
            do {
                return .cards(try await importer.importCards(readings))
            } catch {
                return .failed(reason: "the cards could not be stored: \(error)")
            }
        case SHLContentType.fhirJSON:
            return .records(await importer.importFHIR(file.content, name: Self.sourceName(for: link)))
        case SHLContentType.smartAPIAccess:
            return await connect(file.content, link)
        case let other:
            return .skipped(reason: "content of type \(other) is not imported")
        }
    }

    /// An access grant (a SMART token response with `aud`, the FHIR base, and `patient`): kept as
    /// a provider connection holding the token when a directory was given, else reported.
    private func connect(_ content: Data, _ link: SHLinkPayload) async -> SharedLinkReport.Outcome {
        guard let grant = (try? JSONReader().read(content))?.objectValue, let token = grant.string("access_token"), !token.isEmpty,
            let base = grant.string("aud"), !base.isEmpty
        else { return .failed(reason: "the access grant has no access_token or no aud") }
        guard let providers else {
            return .skipped(reason: "an access grant to \(base), not kept: ask for it to be kept as a provider connection (import --connect-access, or the upload page's choice)")
        }
        guard let patient = grant.string("patient"), !patient.isEmpty else {
            return .failed(reason: "the access grant to \(base) names no patient, so its records cannot be told from others'")
        }
        var new = ProviderDirectory.NewProvider(fhirBase: base)
        new.name = link.label
        new.heldToken = token
        new.patientID = patient
        new.allowLoopback = allowLoopback
        do {
            let connection = try await providers.add(new)
            return .connected(providerID: connection.id, fhirBase: connection.fhirBase)
        } catch {
            return .failed(reason: "the access grant to \(base) could not be kept: \(error)")
        }
    }

    /// The content type a file's JSON implies: cards hold `verifiableCredential`, FHIR content
    /// a `resourceType`.
    static func sniff(_ content: Data) -> String {
        guard let object = (try? JSONReader().read(content))?.objectValue else { return "unknown" }
        if object["verifiableCredential"] != nil { return SHLContentType.smartHealthCard }
        if object["resourceType"] != nil { return SHLContentType.fhirJSON }
        return "unknown"
    }
}
