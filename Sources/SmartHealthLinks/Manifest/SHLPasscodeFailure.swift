/// The body of a 401 answer to a manifest request: `{"remainingAttempts": n}`, the wrong
/// passcodes the server will still take before it disables the link for good.
public struct SHLPasscodeFailure: Codable, Sendable, Hashable {
    /// Attempts left over the link's lifetime; at zero the link is disabled.
    public var remainingAttempts: Int

    /// Makes the body a sharing server sends.
    public init(remainingAttempts: Int) {
        self.remainingAttempts = remainingAttempts
    }
}
