import Foundation
import SMARTAuthorization

/// SMART User-access Brands bundles from the network: one at a URL, or the one a FHIR server
/// advertises as `user_access_brand_bundle` in its SMART configuration. Fetched through the
/// same pinned client and rules as providers (https; http only to this machine when allowed).
public enum BrandBundles {
    /// The brands in the bundle at a URL.
    public static func fetch(_ url: URL, allowLoopback: Bool) async throws(ProviderSyncError) -> [UserAccessBrand] {
        try ProviderDirectory.check(url, allowLoopback: allowLoopback)
        let http = try ProviderHTTP(base: url, allowLoopback: allowLoopback, retry: RetryPolicy(maxAttempts: 3))
        let response = try await http.get(url, bearer: nil, accept: "application/fhir+json, application/json")
        guard response.status == 200 else { throw .status(url: url.absoluteString, status: response.status, detail: nil) }
        do { return try UserAccessBrand.read(bundle: response.body) } catch {
            throw .malformedPage(url: url.absoluteString, reason: "not a User-access Brands bundle: \(error)")
        }
    }

    /// The brands a FHIR server advertises.
    public static func advertised(by fhirBase: String, allowLoopback: Bool) async throws(ProviderSyncError) -> (URL, [UserAccessBrand]) {
        guard let base = URL.fhirBase(fhirBase) else { throw .invalidBase(fhirBase, reason: "not an absolute URL without query or fragment") }
        try ProviderDirectory.check(base, allowLoopback: allowLoopback)
        let http = try ProviderHTTP(base: base, allowLoopback: allowLoopback, retry: RetryPolicy(maxAttempts: 3))
        let configuration = try await ProviderDiscovery(http: http, base: base).smartConfiguration()
        guard let url = configuration.userAccessBrandBundle else { throw .unsupported("a User-access Brands bundle (no user_access_brand_bundle)") }
        return (url, try await fetch(url, allowLoopback: allowLoopback))
    }
}
