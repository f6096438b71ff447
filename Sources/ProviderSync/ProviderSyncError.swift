import Foundation
import OutboundHTTP
import SMARTAuthorization

/// Why connecting to a provider or downloading from it failed. Each case names what went
/// wrong and where, so the person (and the log) can tell a provider's fault from ours.
public enum ProviderSyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No provider has this id.
    case unknownProvider(String)
    /// A provider with this id exists already.
    case duplicateProvider(String)
    /// A name (or an id typed in another case) matches more than one provider: their ids.
    case ambiguousProvider(String, ids: [String])
    /// The FHIR base is not a usable URL (https, or http to loopback when allowed).
    case invalidBase(String, reason: String)
    /// The provider's configuration could not be read: neither `.well-known/smart-configuration`
    /// nor the CapabilityStatement names its endpoints.
    case discovery(base: String, reason: String)
    /// The provider does not offer what this connection needs (PKCE S256, an authorize endpoint).
    case unsupported(String)
    /// The connection has no usable token: the person has to sign in (again).
    case needsSignIn(provider: String, reason: String)
    /// The token endpoint refused a request for another reason.
    case tokenRefused(status: Int, error: String, description: String?)
    /// The sign-in did not complete: denied at the provider, a `state` that does not match,
    /// a callback without a code, or nobody signed in before the timeout.
    case signIn(String)
    /// A request failed before the provider answered.
    case network(url: String, OutboundError)
    /// The provider answered a request with an error status (after retries where they apply).
    case status(url: String, status: Int, detail: String?)
    /// A page is not a FHIR Bundle (or resource) this product can read.
    case malformedPage(url: String, reason: String)
    /// A `next` link leads to a host other than the provider's: the token is not sent there.
    case foreignLink(String)
    /// A `next` link repeats one already followed: the server's paging loops.
    case pagingLoop(url: String)
    /// A search had more pages than the cap allows.
    case pageCapReached(search: String, cap: Int)
    /// The store refused the download.
    case store(String)

    /// A stable code for JSON reports.
    public var code: String {
        switch self {
        case .unknownProvider: return "provider.unknown"
        case .duplicateProvider: return "provider.duplicate"
        case .ambiguousProvider: return "provider.ambiguous"
        case .invalidBase: return "provider.invalidBase"
        case .discovery: return "provider.discovery"
        case .unsupported: return "provider.unsupported"
        case .needsSignIn: return "provider.needsSignIn"
        case .tokenRefused: return "provider.tokenRefused"
        case .signIn: return "provider.signIn"
        case .network: return "provider.network"
        case .status: return "provider.status"
        case .malformedPage: return "provider.malformedPage"
        case .foreignLink: return "provider.foreignLink"
        case .pagingLoop: return "provider.pagingLoop"
        case .pageCapReached: return "provider.pageCap"
        case .store: return "provider.store"
        }
    }

    public var description: String {
        switch self {
        case .unknownProvider(let id): return "no provider \(id) (healthrecords providers list)"
        case .duplicateProvider(let id): return "a provider \(id) exists already (choose another --id, or remove it first)"
        case .ambiguousProvider(let name, let ids): return "\(name) names \(ids.count) providers; give one of their ids: \(ids.joined(separator: ", "))"
        case .invalidBase(let url, let reason): return "cannot use FHIR base \(url): \(reason)"
        case .discovery(let base, let reason): return "cannot discover the SMART endpoints of \(base): \(reason)"
        case .unsupported(let what): return "the provider does not support \(what)"
        case .needsSignIn(let provider, let reason): return "\(provider) needs you to sign in again (healthrecords providers connect \(provider)): \(reason)"
        case .tokenRefused(let status, let error, let description):
            return "the provider's token endpoint refused (HTTP \(status), \(error))" + (description.map { ": \($0)" } ?? "")
        case .signIn(let reason): return "sign-in failed: \(reason)"
        case .network(let url, let error): return "request to \(url) failed: \(error)"
        case .status(let url, let status, let detail): return "\(url) answered HTTP \(status)" + (detail.map { ": \($0)" } ?? "")
        case .malformedPage(let url, let reason): return "\(url) is not a FHIR page this product can read: \(reason)"
        case .foreignLink(let url): return "a next link points to another host (\(url)); the provider's token is never sent there"
        case .pagingLoop(let url): return "the provider's paging loops: \(url) came twice"
        case .pageCapReached(let search, let cap): return "\(search) had more than \(cap) pages (raise --page-cap)"
        case .store(let reason): return "the store refused the download: \(reason)"
        }
    }
}
