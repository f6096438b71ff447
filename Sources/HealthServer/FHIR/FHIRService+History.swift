import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary

extension FHIRService {
    /// One version of a resource as history and vread serve it.
    struct ServedVersion: Sendable {
        let versionId: String
        /// When this version became the current one.
        let date: Date
        /// Whether it is the first version (created, not updated).
        let isFirst: Bool
        let bytes: Data
    }

    /// The versions of a resource the caller may read, newest first: the current one (as a read
    /// serves it) and each earlier one the store kept that the token's read scopes and the
    /// person's grants would let it read on its own (a version filed under a category the app
    /// may not read does not exist for it). 404 when the resource itself may not be read.
    func versions(type: String, id: String, _ caller: FHIRCaller) async throws -> [ServedVersion] {
        guard FHIRResourceTypes.isServed(type) else { throw FHIRRequestError.unknownResourceType(type) }
        if type == "Patient" {
            // The person's Patient is a merge of the providers' copies: it has only its current form.
            let current = try await read(type: type, id: id, caller)
            return [ServedVersion(versionId: current.versionId, date: current.lastUpdated, isFirst: true, bytes: current.bytes)]
        }
        let (item, page) = try await readable(type: type, id: id, caller)
        let rewriter = try await rewriter(caller, at: page.snapshot)
        let filter = ContainedFilter(reach: caller.scopes?.read, windows: page.visibleWindows)
        let earlier = try await caller.view.versions(of: item)
        // A version became current when the one before it was replaced; the first when added.
        func became(_ index: Int) -> Date { index + 1 < earlier.count ? earlier[index + 1].replacedDate : item.stored.addedDate }
        var out = [
            ServedVersion(
                versionId: String(item.stored.anchor.rawValue), date: earlier.first?.replacedDate ?? item.stored.addedDate, isFirst: earlier.isEmpty,
                bytes: try served(item, rewriter, contained: filter))
        ]
        let source = item.stored.source.identifier
        for (index, version) in earlier.enumerated() {
            guard let json = try? JSONReader().read(version.data).objectValue, filter.keeps(json, containerAnchor: version.anchor, containerDate: item.stored.windowDate) else { continue }
            let bytes = try ServedResourceWriter.write(
                version.data, id: id, lastUpdated: InstantText.string(item.stored.addedDate), versionId: String(version.anchor.rawValue),
                rewrite: { rewriter.rewrite($0, source: source) }, keepContained: { filter.keeps($0, containerAnchor: version.anchor, containerDate: item.stored.windowDate) })
            out.append(ServedVersion(versionId: String(version.anchor.rawValue), date: became(index), isFirst: index == earlier.count - 1, bytes: bytes))
        }
        return out
    }

    /// `GET /fhir/{type}/{id}/_history`: a history Bundle of the versions the caller may read.
    func history(type: String, id: String, selfURL: String, _ caller: FHIRCaller) async throws -> [UInt8] {
        let versions = try await versions(type: type, id: id, caller)
        let base = base(caller)
        let entries: [EncodedJSON] = versions.map { v in
            .object([
                ("fullUrl", .string(base + "/" + type + "/" + id)), ("resource", .raw(v.bytes)),
                ("request", .object([("method", .string(v.isFirst ? "POST" : "PUT")), ("url", .string(v.isFirst ? type : type + "/" + id))])),
                ("response", .object([("status", .string(v.isFirst ? "201" : "200")), ("lastModified", .string(InstantText.string(v.date)))])),
            ])
        }
        var out: [UInt8] = []
        EncodedJSON.object([
            ("resourceType", .string("Bundle")), ("type", .string("history")), ("total", .int(versions.count)),
            ("link", .array([.object([("relation", .string("self")), ("url", .string(selfURL))])])), ("entry", .array(entries)),
        ]).write(to: &out)
        return out
    }

    /// `GET /fhir/{type}/{id}/_history/{vid}`: one version the caller may read, or 404.
    func vread(type: String, id: String, versionId: String, _ caller: FHIRCaller) async throws -> ServedRead {
        guard let version = try await versions(type: type, id: id, caller).first(where: { $0.versionId == versionId }) else {
            throw FHIRRequestError.notFound(resourceType: type, id: id + "/_history/" + versionId)
        }
        return ServedRead(bytes: version.bytes, versionId: version.versionId, lastUpdated: version.date)
    }
}
