import CBOR

/// A COSE_Sign1 message (RFC 9052 §4.2): the signed envelope of a DCC.
///
/// Read as the member states' harness reads it: tag 18, untagged, or tag 18 inside the CWT
/// tag 61. The protected header is kept as the bytes that were signed.
public struct COSESign1: Sendable, Hashable {
    /// The protected header as encoded (signed as is); empty for an empty header.
    public let protectedBytes: [UInt8]
    /// The protected header's entries.
    public let protectedHeader: [CBORMapEntry]
    /// The unprotected header's entries.
    public let unprotectedHeader: [CBORMapEntry]
    /// The payload: the CWT's CBOR.
    public let payload: [UInt8]
    /// The signature.
    public let signature: [UInt8]

    /// COSE header labels.
    public enum Label {
        /// `alg`.
        public static let algorithm: Int64 = 1
        /// `kid`.
        public static let keyIdentifier: Int64 = 4
    }

    /// Reads a COSE_Sign1 from its CBOR.
    public init(cbor bytes: [UInt8]) throws(COSEError) {
        let value: CBORValue
        do { value = try CBORReader.decode(bytes) } catch { throw .cbor(error) }
        try self.init(value)
    }

    /// Reads a COSE_Sign1 from a decoded item.
    public init(_ value: CBORValue) throws(COSEError) {
        var item = value
        if case .tagged(61, let inner) = item { item = inner }
        if case .tagged(let tag, let inner) = item {
            guard tag == 18 else { throw .structure("tagged \(tag), not COSE_Sign1 (18)") }
            item = inner
        }
        guard let parts = item.arrayElements else { throw .structure("not an array") }
        guard parts.count == 4 else { throw .structure("an array of \(parts.count) items, not 4") }
        guard let protectedBytes = parts[0].bytes else { throw .structure("the protected header is not a byte string") }
        if protectedBytes.isEmpty {
            protectedHeader = []
        } else {
            let decoded: CBORValue
            do { decoded = try CBORReader.decode(protectedBytes) } catch { throw .cbor(error) }
            guard let entries = decoded.mapEntries else { throw .structure("the protected header is not a map") }
            protectedHeader = entries
        }
        guard let unprotected = parts[1].mapEntries else { throw .structure("the unprotected header is not a map") }
        guard let payload = parts[2].bytes else { throw .structure("the payload is not a byte string (detached payloads are not DCCs)") }
        guard let signature = parts[3].bytes else { throw .structure("the signature is not a byte string") }
        self.protectedBytes = protectedBytes
        self.unprotectedHeader = unprotected
        self.payload = payload
        self.signature = signature
    }

    /// Makes a message from its parts (for signing).
    public init(protectedHeader: [CBORMapEntry], unprotectedHeader: [CBORMapEntry] = [], payload: [UInt8], signature: [UInt8]) {
        self.protectedHeader = protectedHeader
        self.protectedBytes = protectedHeader.isEmpty ? [] : CBORWriter.encode(.map(protectedHeader))
        self.unprotectedHeader = unprotectedHeader
        self.payload = payload
        self.signature = signature
    }

    /// A header parameter: the protected header's, else the unprotected one's.
    public func header(_ label: Int64) -> CBORValue? {
        protectedHeader.first { $0.key.int64 == label }?.value ?? unprotectedHeader.first { $0.key.int64 == label }?.value
    }

    /// The `alg` value, if it is an integer.
    public var algorithm: Int64? { header(Label.algorithm)?.int64 }

    /// The `kid`, if it is a byte string.
    public var keyIdentifier: [UInt8]? { header(Label.keyIdentifier)?.bytes }

    /// The bytes the signature covers: `Sig_structure` = ["Signature1", protected, h'', payload].
    public var signedBytes: [UInt8] { Self.signedBytes(protected: protectedBytes, payload: payload) }

    /// `Sig_structure` for a protected header and a payload, without building CBOR items.
    public static func signedBytes(protected: [UInt8], payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x84, 0x6A]
        out.reserveCapacity(protected.count + payload.count + 24)
        out += "Signature1".utf8
        CBORWriter.head(2, UInt64(protected.count), into: &out)
        out += protected
        out.append(0x40)
        CBORWriter.head(2, UInt64(payload.count), into: &out)
        out += payload
        return out
    }

    /// The tagged (18) COSE_Sign1 encoding.
    public var encoded: [UInt8] {
        CBORWriter.encode(.tagged(18, .array([.bytes(protectedBytes), .map(unprotectedHeader), .bytes(payload), .bytes(signature)])))
    }
}

/// Why bytes are not a COSE_Sign1 message.
public enum COSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes (or the protected header inside them) are not well-formed CBOR.
    case cbor(CBORError)
    /// Well-formed CBOR that is not shaped like COSE_Sign1.
    case structure(String)

    public var description: String {
        switch self {
        case .cbor(let e): return "\(e)"
        case .structure(let s): return "not a COSE_Sign1 message: \(s)"
        }
    }
}

/// The signature algorithms DCCs use (COSE algorithm identifiers).
public enum COSEAlgorithm: Int64, Sendable, Hashable, CaseIterable {
    /// ECDSA P-256 with SHA-256.
    case es256 = -7
    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256, 32-byte salt.
    case ps256 = -37

    /// The JOSE-style name, e.g. `ES256`.
    public var name: String {
        switch self {
        case .es256: return "ES256"
        case .ps256: return "PS256"
        }
    }
}
