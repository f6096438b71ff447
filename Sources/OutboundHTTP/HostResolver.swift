import NetworkAddresses

/// Turns a host name into addresses. Injectable so tests can answer differently on each call
/// and prove the client asks once and connects to what it checked.
public protocol HostResolver: Sendable {
    /// Every address the name has, in the order connections should try them; must give up
    /// (``OutboundError/timedOut(after:)``) within `timeout` and must not block the caller's
    /// thread.
    func addresses(of host: String, timeout: Duration) async throws(OutboundError) -> [IPAddress]
}
