import SwiftASN1

/// Carries a ``DERFault`` through swift-asn1's untyped throwing closures.
///
/// Public entry points catch it and rethrow the fault inside their own typed
/// error (``SignatureVerificationError``, ``KeyError``, ``SampleContentError``).
struct DERFaultError: Error, Hashable {
    var fault: DERFault
}

/// Helpers that turn swift-asn1 failures into ``DERFault``s with context.
enum DERDecoding {
    /// The largest length any parser here accepts before calling a length absurd.
    static let defaultMaximumLength = 1 << 24

    /// Parses `bytes` as exactly one DER value (no trailing bytes, no BER).
    ///
    /// When swift-asn1 rejects the bytes, ``DERScanner`` is run to say exactly
    /// what is wrong and where.
    static func parse(_ bytes: [UInt8], maximumLength: Int = defaultMaximumLength) throws(DERFaultError) -> ASN1Node {
        do {
            return try DER.parse(bytes)
        } catch {
            let fault =
                DERScanner.firstFault(in: bytes, maximumLength: maximumLength)
                ?? DERFault(kind: kind(for: error), structure: .encoding)
            throw DERFaultError(fault: fault)
        }
    }

    /// Runs `body`, attributing any swift-asn1 error it throws to `structure`
    /// at the offset of `node`. Faults already attributed by an inner structure
    /// pass through unchanged, so the innermost structure is the one reported.
    static func within<Result>(
        _ structure: DERStructure,
        at node: ASN1Node,
        _ body: () throws -> Result
    ) throws -> Result {
        do {
            return try body()
        } catch let error as ASN1Error {
            throw DERFaultError(
                fault: DERFault(kind: kind(for: error), structure: structure, offset: node.encodedBytes.startIndex)
            )
        }
    }

    /// Maps a swift-asn1 error code to a fault kind.
    static func kind(for error: any Error) -> DERFault.Kind {
        guard let error = error as? ASN1Error else { return .invalidValue }
        switch error.code {
        case .unexpectedFieldType: return .unexpectedTag
        case .invalidASN1IntegerEncoding: return .invalidInteger
        case .truncatedASN1Field: return .truncated
        case .unsupportedFieldLength: return .nonMinimalLength
        case .invalidStringRepresentation: return .invalidString
        default: return .invalidValue
        }
    }

    /// Reads the next node of a SEQUENCE, failing with ``DERFault/Kind/invalidValue`` when it is missing.
    static func next(
        _ nodes: inout ASN1NodeCollection.Iterator,
        in structure: DERStructure,
        at parent: ASN1Node
    ) throws -> ASN1Node {
        guard let node = nodes.next() else {
            throw DERFaultError(fault: DERFault(kind: .invalidValue, structure: structure, offset: parent.encodedBytes.startIndex))
        }
        return node
    }
}
