import CBOR

/// What a DCC certifies: the one group its payload holds.
public enum DCCKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `v`: a vaccination.
    case vaccination
    /// `t`: a test.
    case test
    /// `r`: recovery.
    case recovery

    /// The payload key of the group.
    public var payloadKey: String {
        switch self {
        case .vaccination: return "v"
        case .test: return "t"
        case .recovery: return "r"
        }
    }

    /// The kind of a payload holding exactly one of `v`, `t`, `r`; `nil` otherwise.
    public init?(payload: CBORValue) {
        let present = Self.allCases.filter { payload[$0.payloadKey] != nil }
        guard present.count == 1 else { return nil }
        self = present[0]
    }
}
