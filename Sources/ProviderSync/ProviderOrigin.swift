import Foundation

/// The scheme, host and port of a provider's FHIR base: the only place its token may go.
struct ProviderOrigin: Sendable, Hashable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether a URL is on this origin.
    func holds(_ url: URL) -> Bool { ProviderOrigin(url) == self }
}

extension URL {
    /// A FHIR base as given, without trailing slashes, so `base + "/Patient"` is one path.
    static func fhirBase(_ text: String) -> URL? {
        var t = text.trimmingCharacters(in: .whitespaces)
        while t.hasSuffix("/") { t.removeLast() }
        guard let url = URL(string: t), url.scheme != nil, url.host != nil, url.query == nil, url.fragment == nil else { return nil }
        return url
    }

    /// This base with a path appended (`Patient/123`, `metadata`) and query items.
    func appending(fhirPath: String, query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false)!
        components.percentEncodedPath = components.percentEncodedPath + "/" + fhirPath
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")
        }
        return components.url!
    }

    /// Percent-encodes a query or form value: everything but unreserved characters.
    static func formEncode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}
