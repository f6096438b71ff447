import Foundation

/// One request as it goes on the wire: HTTP/1.1 with `Connection: close`, one per connection,
/// so no connection (and no earlier resolution) outlives the request.
struct OutboundRequest: Sendable {
    enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    let method: Method
    let url: URL
    let headers: [(name: String, value: String)]
    let body: Data?

    /// The request target: the URL's path (or `/`) and query, percent-encoded as given.
    var target: String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var path = components?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        if let query = components?.percentEncodedQuery { path += "?" + query }
        return path
    }
}
