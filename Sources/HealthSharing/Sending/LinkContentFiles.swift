import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import PatientSummary
import SmartHealthLinks

/// A file of a link before encryption.
public struct LinkPlainFile: Sendable {
    /// `application/fhir+json` or `application/smart-health-card`.
    public let contentType: String
    /// What it is, for people ("International Patient Summary (7 sections)").
    public let title: String
    public let data: Data
}

/// Builds the files a link shares from the person's store, in a fixed order: the summary, the
/// check-in bundle, the collection of record types, the cards.
public struct LinkContentFiles: Sendable {
    let store: any HealthStore

    public init(store: any HealthStore) { self.store = store }

    /// The files for what a link names.
    public func files(for content: HostedLinkContent, now: Date) async throws(HostedLinkError) -> [LinkPlainFile] {
        if content.isEmpty { throw .noContent }
        if content.checkIn && (content.summary || !content.types.isEmpty || !content.cards.isEmpty) { throw .checkInWithOthers }
        var types: [ClinicalType] = []
        for name in content.types {
            guard let type = ClinicalType(name: name), SummarySection.allCases.contains(where: { $0.clinicalType == type }) else { throw .typeNotShareable(name) }
            if !types.contains(type) { types.append(type) }
        }
        var files: [LinkPlainFile] = []
        if content.summary || content.checkIn || !types.isEmpty {
            let summary: PatientSummary
            do { summary = try await PatientSummaryBuilder(store: store, now: now).build() } catch { throw .store("cannot build the summary: \(error)") }
            if content.summary {
                let filled = summary.sections.filter { $0.count > 0 }.count
                files.append(LinkPlainFile(contentType: SHLContentType.fhirJSON, title: "International Patient Summary (\(filled) sections with entries)", data: summary.data))
            }
            if content.checkIn {
                guard let bundle = RecordCollection.cut(summary, sections: RecordCollection.checkInSections, now: now) else {
                    throw .nothingToShare("no problems, allergies, current medications or immunizations are stored")
                }
                files.append(LinkPlainFile(contentType: SHLContentType.fhirJSON, title: "check-in bundle (\(bundle.list("entry").count) entries)", data: Self.data(bundle)))
            }
            if !types.isEmpty {
                let sections = SummarySection.allCases.filter { $0.clinicalType.map(types.contains) ?? false }
                guard let bundle = RecordCollection.cut(summary, sections: sections, now: now) else {
                    throw .nothingToShare("no \(types.map(\.name).joined(separator: ", ")) records are in the summary")
                }
                files.append(LinkPlainFile(
                    contentType: SHLContentType.fhirJSON, title: "\(types.map(\.name).joined(separator: ", ")) (\(bundle.list("entry").count) entries)",
                    data: Self.data(bundle)))
            }
        }
        if !content.cards.isEmpty {
            var jws: [JSONValue] = []
            for id in content.cards { jws.append(.string(try await card(id).record.jws)) }
            let object = JSONObject([JSONMember("verifiableCredential", .array(jws))])
            files.append(LinkPlainFile(contentType: SHLContentType.smartHealthCard, title: "\(jws.count) SMART Health Card\(jws.count == 1 ? "" : "s")", data: Self.data(object)))
        }
        return files
    }

    /// A card by identifier or by a prefix of at least 12 characters (as `cards` prints them).
    public func card(_ id: String) async throws(HostedLinkError) -> StoredVerifiableRecord {
        let found: StoredVerifiableRecord
        do {
            if let exact = try await store.verifiableRecord(identifier: id) {
                found = exact
            } else {
                guard id.count >= 12 else { throw HostedLinkError.unknownCard(id) }
                let matches = try await store.verifiableRecords(VerifiableRecordQuery()).filter { $0.identifier.hasPrefix(id) }
                if matches.count > 1 { throw HostedLinkError.ambiguousCard(id) }
                guard let only = matches.first else { throw HostedLinkError.unknownCard(id) }
                found = only
            }
        } catch let error as HostedLinkError {
            throw error
        } catch {
            throw .store("\(error)")
        }
        guard found.record.sourceType == .smartHealthCard else { throw .notASmartHealthCard(id) }
        return found
    }

    static func data(_ object: JSONObject) -> Data { Data(JSONWriter.minified(.object(object))) }
}
