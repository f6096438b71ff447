import FHIR
import Foundation
import HealthStoreCore
import Synchronization

/// One page a provider answered: its entries, read but not yet made into resources or
/// classified (that is the store's producer's work, so it overlaps with writing), and where the
/// next page is.
///
/// A class, so that once the page is stored what it holds can be handed to
/// ``BackgroundRelease`` from every copy at once.
final class ProviderPage: Sendable {
    private let content: Mutex<PageEntries>
    /// The page's entries.
    var entries: PageEntries { content.withLock { $0 } }
    /// The `next` link, resolved to an absolute URL; `nil` on the last page.
    let next: URL?
    /// Where the page came from.
    let url: URL

    static let limits = JSONLimits(maxDocumentBytes: ProviderHTTP.maxResponseBytes, maxDepth: 128, maxStringBytes: 32 << 20, maxContainerElements: 1_000_000)

    /// How many resources the page holds (OperationOutcomes left out).
    let count: Int

    /// Reads a page's bytes (a Bundle, or one resource for a read) to its tape: the entries
    /// stay unread until the store takes them. A fetch-only run reads pages the same way, so
    /// what a sync costs beyond it is making resources, classifying and storing.
    init(data: Data, url: URL, base: URL) throws(ProviderSyncError) {
        self.url = url
        let entries: PageEntries
        // Only the tape: a Bundle's entries become trees and resources as the store takes
        // them, so writing starts with the first entries rather than after the whole page.
        let tape: JSONTape
        do { tape = try JSONTape([UInt8](data), limits: Self.limits) } catch {
            throw .malformedPage(url: url.absoluteString, reason: "not JSON (\(error))")
        }
        let reader = FHIRDocumentReader(jsonLimits: Self.limits)
        do {
            if let bundle = try reader.tapedBundle(tape, data: data) {
                entries = .taped(bundle)
            } else {
                entries = .resources(try reader.content(of: tape.value(tape.root), data: data).resources)
            }
        } catch {
            throw .malformedPage(url: url.absoluteString, reason: "\(error)")
        }
        count = entries.count
        let links = tape.member(tape.root, "link").map { tape.value($0) }
        var next: URL?
        for link in links?.arrayValue ?? [] where link["relation"]?.stringValue == "next" {
            guard let text = link["url"]?.stringValue, !text.isEmpty else { continue }
            guard let resolved = Self.resolve(text, page: url, base: base) else {
                throw .malformedPage(url: url.absoluteString, reason: "the next link \(text) is not a URL")
            }
            next = resolved
        }
        self.next = next
        self.content = Mutex(entries)
    }

    /// Empties the page (every copy shares it) and frees what it held on another thread.
    func releaseInBackground() {
        BackgroundRelease.release(
            content.withLock { c in
                defer { c = .resources([]) }
                return c
            })
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
