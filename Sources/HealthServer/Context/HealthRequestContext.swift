import ClinicalRecords
import Foundation
import HealthStoreCore
import Hummingbird
import Synchronization

/// The request context of every route: Hummingbird's core storage, the app a bearer token
/// authenticated (API routes) and the person's session (page routes).
public struct HealthRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The view of the store the authenticated app has; `nil` before authentication.
    public var appView: AppView?
    /// What a SMART access token's scopes reach; `nil` when the token is not narrowed by scopes
    /// (the app API's client-credentials tokens). FHIR routes serve only what both the app's
    /// grants and these admit.
    var scopes: TokenScopes?
    /// The authenticated app's access revision (what its token was issued under).
    var accessRevision = 0
    /// The person's browser session; `nil` before the session check.
    var session: PersonSession?
    /// Whether the request came to the shared SMART base of a server for many people and was
    /// sent to this person's server by the person its credential names (``SharedSMARTBase``).
    var atSharedBase = false
    /// Facts the logging middleware reads after the handler ran (shared by the context's copies).
    let facts = RequestFacts()
    /// The source address failures are throttled by (``ClientAddress``).
    let clientAddress: String

    /// Makes a context for a request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        clientAddress = ClientAddress.key(source.channel.remoteAddress)
    }

    /// The authenticated app's view; 401 when the route was reached without authentication.
    func app() throws(APIError) -> AppView {
        guard let appView else { throw .invalidToken }
        return appView
    }
}

/// What a request turned out to be, filled in as it is handled and read by the log line.
final class RequestFacts: Sendable {
    private let app = Mutex<String?>(nil)

    /// The authenticated app's id (random, not personal data).
    var appID: String? {
        get { app.withLock { $0 } }
        set { app.withLock { $0 = newValue } }
    }
}
