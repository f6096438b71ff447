import SampleSignatures

/// What the store found when it checked a sample's signature on saving.
///
/// The store does not know the device maker's key, so it can only tell whether a signature is
/// there and well formed; ``QuantitySample/verifySignature(with:)`` checks it against a key.
/// A malformed signature never stops a sample from being saved: the sample is kept and marked.
public enum SampleSignatureStatus: Sendable, Hashable, CustomStringConvertible {
    /// No ``SampleMetadataKey/digitalSignature`` metadata.
    case unsigned
    /// A well-formed CMS SignedData whose content (when attached) is a sample.
    case present
    /// The signature is not well formed; the reason says why.
    case malformed(reason: String)

    /// Checks a sample's signature metadata.
    public static func check(_ sample: QuantitySample) -> SampleSignatureStatus {
        guard let signature = sample.digitalSignature else { return .unsigned }
        do {
            _ = try SignedSample.structure(of: signature)
            return .present
        } catch {
            return .malformed(reason: error.description)
        }
    }

    /// `unsigned`, `present` or `malformed: <reason>`.
    public var description: String {
        switch self {
        case .unsigned: return "unsigned"
        case .present: return "present"
        case .malformed(let reason): return "malformed: \(reason)"
        }
    }

    /// Reads ``description`` back.
    package init(storedText: String) {
        switch storedText {
        case "unsigned": self = .unsigned
        case "present": self = .present
        default:
            let prefix = "malformed: "
            self = .malformed(reason: storedText.hasPrefix(prefix) ? String(storedText.dropFirst(prefix.count)) : storedText)
        }
    }
}
