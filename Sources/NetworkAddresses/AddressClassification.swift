/// What an address is, and which registry entry says so: enough for a policy to decide and for
/// an operator's log to explain the decision.
public struct AddressClassification: Sendable, Hashable, CustomStringConvertible {
    /// The address classified.
    public let address: IPAddress
    /// What outbound requests may do with it.
    public let kind: AddressKind
    /// The registry entry that decided (for an embedding block with a non-global IPv4 address
    /// inside, the IPv4 entry); `nil` for ordinary global unicast.
    public let range: SpecialPurposeRange?
    /// The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 address.
    public let embedded: IPv4Address?

    /// Classifies an address by the registries, following embedded IPv4 addresses.
    public init(_ address: IPAddress) {
        self.address = address
        guard let entry = SpecialPurposeRegistry.entry(for: address) else {
            if case .v6 = address, !SpecialPurposeRegistry.globalUnicast.contains(address) {
                (kind, range, embedded) = (.special, SpecialPurposeRegistry.outsideGlobalUnicast, nil)
            } else {
                (kind, range, embedded) = (.global, nil, nil)
            }
            return
        }
        guard case .v6(let v6) = address, entry.embedding != .none else {
            (kind, range, embedded) = (entry.kind, entry, nil)
            return
        }
        let inner: IPv4Address
        switch entry.embedding {
        case .sixToFour: inner = IPv4Address(UInt32(truncatingIfNeeded: v6.value >> 80))
        default: inner = v6.low32
        }
        let innerClass = AddressClassification(.v4(inner))
        embedded = inner
        switch entry.embedding {
        case .ipv4Mapped:
            // The socket talks IPv4 to the inner address: it is exactly as allowed as that address.
            (kind, range) = (innerClass.kind, innerClass.range)
        default:
            // A tunnel or translator forwards there: only a global inner address is acceptable,
            // and never one a loopback or private-network allowance would let through.
            (kind, range) = innerClass.kind == .global ? (.global, entry) : (.special, innerClass.range ?? entry)
        }
    }

    public var description: String {
        var text = "\(address) is \(kind)"
        if let range { text += " (\(range))" }
        if let embedded, embedded.description != address.description { text += ", embedding \(embedded)" }
        return text
    }
}
