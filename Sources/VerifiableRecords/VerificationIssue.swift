/// A stable code for one verification check, e.g. `signature.invalid`.
///
/// The vocabulary is documented in `docs/verification-codes.md`; codes never change meaning. Each
/// format declares its own codes (SMART Health Cards, EU DCCs) as constants in an extension.
public struct VerificationCode: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
}

/// One failed check or warning: a stable code and a message for people.
public struct VerificationIssue: Sendable, Hashable, CustomStringConvertible {
    /// The stable code, e.g. `fhir.references`: what to match on, unlike ``message``.
    public let code: VerificationCode
    /// What is wrong, for people.
    public let message: String

    /// Makes an issue; any code is accepted, not only the constants ``VerificationCode`` declares.
    public init(_ code: VerificationCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
