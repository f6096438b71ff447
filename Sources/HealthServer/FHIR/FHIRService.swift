import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import SMARTAuthorization
import Synchronization

/// Who is reading: the app's view of the store and what its token's scopes reach (`nil`: a
/// token not narrowed by scopes, such as the app API's client-credentials tokens).
struct FHIRCaller: Sendable {
    let view: AppView
    let scopes: TokenScopes?
    /// Whether the request came to the shared SMART base of a server for many people, whose
    /// URLs its links then name (``FHIRService/base(_:)``).
    var atSharedBase = false
}

/// The FHIR read side over the store: reads, searches and `$everything`, each through the
/// app's ``AppView`` (grants, "ask" watermarks and audit), served as R4 resources with served
/// ids and rewritten references. Holds what every request shares and never changes (the
/// person's Patient id, the page-token key) and the Patient ids per source (refreshed when the
/// store's anchor moves on).
final class FHIRService: Sendable {
    /// Resources, the Patients per source and the store's anchor (through each app's view for
    /// what apps read; directly only for the Patient ids references are rewritten by).
    let store: any RecordReading & ChangeFeed & ConsentStorage
    let address: ServerAddress
    private let fixed = Mutex<(personID: String, pages: FHIRPageTokens)?>(nil)
    private let patients = Mutex<(anchor: QueryAnchor, ids: [String: Set<String>])?>(nil)
    /// Served bytes of resources recently served, by served id: a resource's served form
    /// depends only on its stored bytes (its anchor) and its source's Patient ids, and making
    /// it (parse, rewrite, write) is most of a search's time. Bounded; emptied when full.
    private let servedCache = Mutex<[String: ServedBytes]>([:])
    static let servedCacheLimit = 4096

    /// Bundles made from pages, by what they were made for and the store anchor the page was
    /// read at (``ResourcePage/readAt``): any change to the store moves the anchor on. Kept
    /// the second time they are made, so searches that differ every time are not copied here.
    private let bundles = RepeatCache<BundleKey, KeptBundle>(limit: 256)

    private struct KeptBundle: Sendable {
        let readAt: QueryAnchor
        let bytes: [UInt8]
    }

    /// Everything a search Bundle depends on besides the store page it was made from.
    struct BundleKey: Hashable, Sendable {
        let appID: String
        let scopes: TokenScopes?
        let request: FHIRSearchRequest
        let page: FHIRPageState?
        let selfURL: String
        /// The consent windows the page was read through (the app's grants and watermarks).
        let windows: [TypeWindow<ConsentCategory>]?
    }

    func keptBundle(_ key: BundleKey, readAt: QueryAnchor) -> [UInt8]? {
        bundles.value(key).flatMap { $0.readAt == readAt ? $0.bytes : nil }
    }

    func keepBundle(_ bytes: [UInt8], for key: BundleKey, readAt: QueryAnchor) {
        bundles.offer(KeptBundle(readAt: readAt, bytes: bytes), for: key)
    }

    private struct ServedBytes: Sendable {
        let anchor: QueryAnchor
        let sourcePatients: Set<String>?
        let contained: ContainedFilter
        let bytes: Data
    }

    /// In a server for many people, the root's SMART base; `nil` otherwise.
    let sharedBase: SharedSMARTBase?

    init(store: any RecordReading & ChangeFeed & ConsentStorage, address: ServerAddress, sharedBase: SharedSMARTBase? = nil) {
        self.store = store
        self.address = address
        self.sharedBase = sharedBase
    }

    /// The FHIR base URL, `…/fhir`.
    var base: String { address.baseURL + "/fhir" }

    /// The FHIR base a caller came to, which the links of its answers name: the shared base's
    /// for a request that came there, the person's own otherwise.
    func base(_ caller: FHIRCaller) -> String {
        if caller.atSharedBase, let sharedBase { return sharedBase.endpoints.fhirBase }
        return base
    }

    /// The person's Patient id and the page-token sealer, read from the store once.
    func shared() async throws -> (personID: String, pages: FHIRPageTokens) {
        if let f = fixed.withLock({ $0 }) { return f }
        let f = (personID: try await store.personPatientID(), pages: FHIRPageTokens(anchorSecret: try await store.anchorSecret()))
        fixed.withLock { $0 = $0 ?? f }
        return f
    }

    /// The ids of the Patients each source holds, at least as new as `anchor`.
    private func sourcePatients(_ anchor: QueryAnchor) async throws -> [String: Set<String>] {
        if let p = patients.withLock({ $0 }), p.anchor >= anchor { return p.ids }
        let current = try await store.currentAnchor()
        var ids: [String: Set<String>] = [:]
        for p in try await store.contextResources(ofType: .patient, source: nil) { ids[p.source.identifier, default: []].insert(p.resource.identifier) }
        patients.withLock { if ($0?.anchor ?? QueryAnchor(rawValue: -1)) < current { $0 = (current, ids) } }
        return ids
    }

    /// The rewriter for resources read at a snapshot.
    func rewriter(_ caller: FHIRCaller, at snapshot: QueryAnchor) async throws -> ReferenceRewriter {
        let view = caller.view
        return ReferenceRewriter(personID: try await shared().personID, sourcePatients: try await sourcePatients(snapshot)) { source, type, id in
            view.resourceKey(source: source, resourceType: type, identifier: id).hex
        }
    }

    /// The served bytes of a stored resource, without the `contained` resources `contained`
    /// refuses.
    /// `id` is the item's served id when the caller has it already (`item.key.hex`).
    func served(_ item: KeyedResource, id: String? = nil, _ rewriter: ReferenceRewriter, contained: ContainedFilter) throws -> Data {
        let source = item.stored.source.identifier
        let id = id ?? item.key.hex
        let patients = rewriter.sourcePatients[source]
        if let hit = servedCache.withLock({ $0[id] }), hit.anchor == item.stored.anchor, hit.sourcePatients == patients, hit.contained == contained {
            return hit.bytes
        }
        let anchor = item.stored.anchor
        let date = item.stored.windowDate
        let bytes = try ServedResourceWriter.write(
            item.stored.resource.data, id: id, lastUpdated: InstantText.string(item.stored.addedDate), versionId: String(anchor.rawValue),
            rewrite: { rewriter.rewrite($0, source: source) }, keepContained: { contained.keeps($0, containerAnchor: anchor, containerDate: date) })
        var dropped: [String: ServedBytes] = [:]
        servedCache.withLock { cache in
            if cache.count >= Self.servedCacheLimit { swap(&cache, &dropped) }
            cache[id] = ServedBytes(anchor: item.stored.anchor, sourcePatients: patients, contained: contained, bytes: bytes)
        }
        // What was dropped is freed here, outside the lock.
        return bytes
    }

    // MARK: Read

    /// A resource as a read serves it, with what its `ETag` and `Last-Modified` say.
    struct ServedRead: Sendable {
        let bytes: Data
        /// This server's version of it (`meta.versionId`).
        let versionId: String
        /// Its `meta.lastUpdated`.
        let lastUpdated: Date
    }

    /// `GET /fhir/{type}/{id}`: the served resource, or 404 (the same for hidden, out of the
    /// token's scopes and missing).
    func read(type: String, id: String, _ caller: FHIRCaller) async throws -> ServedRead {
        guard FHIRResourceTypes.isServed(type) else { throw FHIRRequestError.unknownResourceType(type) }
        if type == "Patient" {
            guard id == (try await shared().personID), let patient = try await mergedPatient(caller, reach: caller.scopes?.read, snapshot: nil) else {
                throw FHIRRequestError.notFound(resourceType: type, id: id)
            }
            return ServedRead(bytes: patient.bytes, versionId: patient.versionId, lastUpdated: patient.subject.lastUpdated)
        }
        let (item, page) = try await readable(type: type, id: id, caller)
        let bytes = try served(item, try await rewriter(caller, at: page.snapshot), contained: ContainedFilter(reach: caller.scopes?.read, windows: page.visibleWindows))
        return ServedRead(bytes: bytes, versionId: String(item.stored.anchor.rawValue), lastUpdated: item.stored.addedDate)
    }

    /// The stored resource a read by id may serve, and the page it was read in; 404 for any
    /// other (hidden, out of the token's read scopes, missing).
    func readable(type: String, id: String, _ caller: FHIRCaller) async throws -> (KeyedResource, ResourcePage) {
        let reach = caller.scopes?.read
        guard let key = ResourceKey(hex: id), reach.map({ $0.extent(of: type) != nil }) ?? true else {
            throw FHIRRequestError.notFound(resourceType: type, id: id)
        }
        let query = ResourceQuery(resourceTypes: [FHIRResourceType(type)], release: .r4, keys: [key], limit: 1)
        let page = try await caller.view.resources(query, countingTotal: false)
        guard let item = page.resources.first else { throw FHIRRequestError.notFound(resourceType: type, id: id) }
        if let reach, reach.extent(of: type) != .whole, !reach.admits(try item.stored.resource.json()) {
            throw FHIRRequestError.notFound(resourceType: type, id: id)
        }
        return (item, page)
    }

    // MARK: The person's Patient

    /// The merged Patient the app may see, with its JSON and last update; `nil` when it may see
    /// no Patient resource (personal details not granted, Patient outside `reach`, or none stored).
    func mergedPatient(_ caller: FHIRCaller, reach: ResourceReach?, snapshot: QueryAnchor?) async throws -> (bytes: Data, subject: SearchSubject, versionId: String)? {
        if let reach, reach.extent(of: "Patient") != .whole { return nil }
        let query = ResourceQuery(resourceTypes: [.patient], release: .r4, addedThrough: snapshot)
        let page = try await caller.view.resources(query, countingTotal: false)
        guard !page.resources.isEmpty else { return nil }
        let rewriter = try await rewriter(caller, at: page.snapshot)
        let contained = ContainedFilter(reach: reach, windows: page.visibleWindows)
        var parts: [JSONObject] = []
        for item in page.resources {
            if let object = try JSONReader().read(try served(item, rewriter, contained: contained)).objectValue { parts.append(object) }
        }
        let updated = page.resources.map(\.stored.addedDate).max() ?? Date(timeIntervalSince1970: 0)
        let personID = try await shared().personID
        // The merged Patient changes whenever a part does: its version is the latest part's.
        let versionId = String(page.resources.map(\.stored.anchor.rawValue).max() ?? 0)
        let merged = PatientMerger.merge(parts, personID: personID, lastUpdated: InstantText.string(updated), versionId: versionId)
        let subject = SearchSubject(json: merged, category: .context(.personalDetails), servedID: personID, lastUpdated: updated)
        return (Data(JSONWriter.minified(.object(merged))), subject, versionId)
    }
}
