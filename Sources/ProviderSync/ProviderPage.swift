import FHIR
import Foundation

/// One page a provider answered: its resources, read but not yet classified (classifying is
/// the store's producer's work, so it overlaps with writing), and where the next page is.
struct ProviderPage: Sendable {
    /// The page's resources, OperationOutcomes left out (they describe the search, not the person).
    var resources: [FHIRResource]
    /// The bundle, for references between its entries (a display name from a Medication).
    var bundle: FHIRBundle?
    /// The `next` link, resolved to an absolute URL; `nil` on the last page.
    var next: URL?

    static let limits = JSONLimits(maxDocumentBytes: ProviderHTTP.maxResponseBytes, maxDepth: 128, maxStringBytes: 32 << 20, maxContainerElements: 1_000_000)

    /// How many resources the page holds (OperationOutcomes left out).
    var count: Int

    /// Reads a page's bytes (a Bundle, or one resource for a read); with `linksOnly`, only
    /// what paging needs (the `next` link and a count), as a client that stores nothing would.
    init(data: Data, url: URL, base: URL, linksOnly: Bool = false) throws(ProviderSyncError) {
        let value: JSONValue
        do { value = try JSONReader(limits: Self.limits).read(data) } catch {
            throw .malformedPage(url: url.absoluteString, reason: "not JSON (\(error))")
        }
        if linksOnly {
            resources = []
            bundle = nil
            count = value["entry"]?.arrayValue?.filter { ($0["resource"]?["resourceType"]?.stringValue).map { $0 != "OperationOutcome" } ?? false }.count
                ?? (value["resourceType"]?.stringValue == "Bundle" ? 0 : 1)
        } else {
            let content: FHIRContent
            do { content = try FHIRDocumentReader(jsonLimits: Self.limits).content(of: value, data: data) } catch {
                throw .malformedPage(url: url.absoluteString, reason: "\(error)")
            }
            resources = content.resources.filter { $0.resourceType.rawValue != "OperationOutcome" }
            if case .bundle(let b) = content { bundle = b } else { bundle = nil }
            count = resources.count
        }
        next = nil
        for link in value["link"]?.arrayValue ?? [] where link["relation"]?.stringValue == "next" {
            guard let text = link["url"]?.stringValue, !text.isEmpty else { continue }
            guard let resolved = Self.resolve(text, page: url, base: base) else {
                throw .malformedPage(url: url.absoluteString, reason: "the next link \(text) is not a URL")
            }
            next = resolved
        }
    }

    /// Resolves a `next` link: absolute as it is; `/path` or `?query` against the page's URL;
    /// a bare relative path (`Observation?page=2`) against the FHIR base, as FHIR reads
    /// relative references.
    static func resolve(_ link: String, page: URL, base: URL) -> URL? {
        if let absolute = URL(string: link), absolute.scheme != nil { return absolute }
        if link.hasPrefix("/") || link.hasPrefix("?") { return URL(string: link, relativeTo: page)?.absoluteURL }
        return URL(string: link, relativeTo: URL(string: base.absoluteString + "/"))?.absoluteURL
    }
}
