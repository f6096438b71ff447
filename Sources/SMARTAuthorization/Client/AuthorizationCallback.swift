/// What a callback carried: `?code=…&state=…` or `?error=…&error_description=…&state=…`.
///
/// The `state` is checked before anything else is believed, so a callback this client did not
/// start (a forged link, an old tab) is refused even when it reports an error.
public enum AuthorizationCallback: Sendable, Hashable {
    /// The server granted access: the authorization code to exchange.
    case code(String)
    /// The user or server refused (`access_denied`, `invalid_scope`, …) and why, when it says.
    case denied(error: String, description: String?)

    /// Parses a callback's query; checks `state` against the expected one in constant time
    /// (mismatch or missing → throws .stateMismatch). A missing code → .missingCode.
    ///
    /// `query` may start with `?`. Values are form-decoded (`%XX`, `+` as a space). A `state` or
    /// `code` given twice is refused (RFC 6749 §3.1: no parameter more than once), since which
    /// copy a reader takes is ambiguous: a second `state` is a `.stateMismatch`, a second `code`
    /// a `.missingCode`. A query that cannot be decoded has no readable `state`: `.stateMismatch`.
    public static func parse(query: String, expectedState: String) throws(SMARTClientError) -> AuthorizationCallback {
        guard let pairs = FormEncoding.decode(Substring(query)) else { throw .stateMismatch }
        let states = pairs.filter { $0.name == "state" }.map(\.value)
        guard !expectedState.isEmpty, states.count == 1, constantTimeEqual(states[0], expectedState) else { throw .stateMismatch }
        if let error = pairs.first(where: { $0.name == "error" })?.value {
            let description = pairs.first(where: { $0.name == "error_description" })?.value
            return .denied(error: error, description: description)
        }
        let codes = pairs.filter { $0.name == "code" }.map(\.value)
        guard codes.count == 1, !codes[0].isEmpty else { throw .missingCode }
        return .code(codes[0])
    }

    /// Whether two strings have the same UTF-8 bytes, in time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for (p, q) in zip(x, y) { difference |= p ^ q }
        return difference == 0
    }
}
