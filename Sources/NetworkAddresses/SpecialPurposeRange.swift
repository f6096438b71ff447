/// One entry of the IANA special-purpose address registries (or of the address-space
/// registries, for multicast, site-local and the IPv4-compatible form): what it is, where it
/// is defined, and what outbound requests may do with it.
public struct SpecialPurposeRange: Sendable, Hashable, CustomStringConvertible {
    /// How an IPv6 block carries an IPv4 address whose class decides instead.
    public enum Embedding: Sendable, Hashable {
        /// Not an embedding block: ``SpecialPurposeRange/kind`` decides.
        case none
        /// `::ffff:0:0/96`: the socket really talks IPv4 to the low 32 bits.
        case ipv4Mapped
        /// `64:ff9b::/96`: a NAT64 gateway forwards to the low 32 bits; only a global IPv4
        /// address may sit there (RFC 6052 §3.1), so anything else is refused outright.
        case nat64WellKnown
        /// `2002::/16`: 6to4 tunnels to bits 16–47; only a global IPv4 address is accepted.
        case sixToFour
    }

    /// The registry's address block, e.g. `10.0.0.0/8`.
    public let prefix: AddressPrefix
    /// The registry's name for it.
    public let name: String
    /// The document the registry cites for the block, e.g. `RFC 1918`.
    public let reference: String
    /// What outbound requests may do with an address here (unless ``embedding`` decides).
    public let kind: AddressKind
    /// Whether an embedded IPv4 address decides instead of ``kind``.
    public let embedding: Embedding

    /// Makes an entry; the prefix text must be valid (the tables are written by hand, so a
    /// typo stops at the first use rather than silently classifying nothing).
    public init(_ prefix: String, _ name: String, _ reference: String, _ kind: AddressKind, embedding: Embedding = .none) {
        guard let parsed = AddressPrefix(prefix) else { preconditionFailure("bad prefix \(prefix) in the special-purpose table") }
        self.prefix = parsed
        self.name = name
        self.reference = reference
        self.kind = kind
        self.embedding = embedding
    }

    public var description: String { "\(prefix) (\(name), \(reference))" }
}
