/// Why an ECDSA P-256 signature value was rejected before any curve arithmetic.
public enum ECDSASignatureFault: Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a strict DER `ECDSA-Sig-Value` (BER, extra zeros, negative numbers, trailing bytes…).
    case notDER(DERFault)
    /// `r` is 0 or not less than the group order n.
    case rOutOfRange
    /// `s` is 0 or not less than the group order n.
    case sOutOfRange

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .notDER(let fault): "not a DER ECDSA-Sig-Value: \(fault)"
        case .rOutOfRange: "r is not in [1, n-1]"
        case .sOutOfRange: "s is not in [1, n-1]"
        }
    }
}
