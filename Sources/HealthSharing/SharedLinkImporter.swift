import CardScanning
import FHIR
import Foundation
import HealthImport
import SmartHealthLinks

/// Imports the files behind a SMART Health Link through the one way data enters (HealthImport):
/// SMART Health Cards are verified and stored as cards, FHIR content (an IPS, a check-in
/// bundle, any resource) lands as one source named after the link's label.
public struct SharedLinkImporter: Sendable {
    /// The importer the files go through.
    public let importer: RecordImporter

    /// Makes an importer over a record importer (its store, trust policy and options).
    public init(importer: RecordImporter) {
        self.importer = importer
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
            return .skipped(reason: "an access grant to a FHIR server: connecting it as a provider is not supported yet")
        case let other:
            return .skipped(reason: "content of type \(other) is not imported")
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
