/// Why an input held no card at all.
///
/// A verifier that reads nothing has verified nothing, and must say so instead of reporting an
/// empty success; the reason tells the person what they handed over (`input.noCard`).
public enum NoCardReason: Sendable, Hashable, CustomStringConvertible {
    /// No bytes, or only whitespace.
    case empty
    /// Text that is neither a card file (JSON), `shc:` QR text, nor shaped like a JWS.
    case notCardText
    /// A `.smart-health-card` file or `Parameters` response that carries no `verifiableCredential`.
    case noCredentials
    /// An image in which no QR code could be read.
    case noQRCode
    /// An image whose QR codes are none of them `shc:` text.
    case noCardQRCode(count: Int)

    public var description: String {
        switch self {
        case .empty: return "the input is empty"
        case .notCardText: return "the text is neither a card file, shc:/ QR text nor a JWS"
        case .noCredentials: return "the file holds no verifiableCredential"
        case .noQRCode: return "no QR code could be read in the image"
        case .noCardQRCode(let n): return "the image holds \(n == 1 ? "a QR code" : "\(n) QR codes"), but no SMART Health Card (shc:/)"
        }
    }
}

extension HealthCardInput.Card {
    /// The stand-in for an input in which nothing could be read: its report carries the
    /// `input.noCard` error, so the input counts as a failure.
    public init(nothingReadIn origin: String, because reason: NoCardReason) {
        self.init(jws: "", origin: origin, inputError: VerificationIssue(.inputNoCard, "\(origin): \(reason)"))
    }
}
