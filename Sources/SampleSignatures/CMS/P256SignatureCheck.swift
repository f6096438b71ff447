import Crypto
import Foundation
import SwiftASN1

/// The single ECDSA P-256 / SHA-256 signature check used by CMS verification.
///
/// It accepts only a strict DER `ECDSA-Sig-Value` (swift-asn1's DER parser:
/// minimal lengths and INTEGERs, no negative numbers, no trailing bytes),
/// requires 1 ≤ r, s < n, and only then asks swift-crypto to do the curve
/// arithmetic on the raw `r‖s`. Malleable encodings that a lenient decoder
/// would accept are therefore rejected before swift-crypto sees them.
public enum P256SignatureCheck {
    /// The order n of the P-256 group, big-endian.
    static let groupOrder: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// Verifies a DER-encoded ECDSA signature over a SHA-256 digest.
    ///
    /// - Parameters:
    ///   - derSignature: the `ECDSA-Sig-Value` bytes, as carried in a CMS `SignerInfo`.
    ///   - digest: SHA-256 of the signed bytes.
    ///   - publicKey: the signer's P-256 key.
    /// - Throws: ``SignatureVerificationError/malformedSignature(_:)`` for a value that is not strict DER
    ///   or whose r or s is out of range, ``SignatureVerificationError/signatureInvalid`` when the
    ///   signature does not verify.
    public static func verify(
        derSignature: [UInt8],
        digest: SHA256Digest,
        publicKey: P256.Signing.PublicKey
    ) throws(SignatureVerificationError) {
        let signature = try parse(derSignature)
        guard publicKey.isValidSignature(signature, for: digest) else {
            throw .signatureInvalid
        }
    }

    /// Verifies a DER-encoded ECDSA signature over `message` (hashed with SHA-256).
    public static func verify(
        derSignature: [UInt8],
        message: some DataProtocol,
        publicKey: P256.Signing.PublicKey
    ) throws(SignatureVerificationError) {
        try verify(derSignature: derSignature, digest: SHA256.hash(data: message), publicKey: publicKey)
    }

    /// Parses a strict DER `ECDSA-Sig-Value` with 1 ≤ r, s < n into swift-crypto's type.
    static func parse(_ derSignature: [UInt8]) throws(SignatureVerificationError) -> P256.Signing.ECDSASignature {
        let value: ECDSASignatureValue
        if let fast = fastParse(derSignature) {
            value = fast
        } else {
            value = try fullParse(derSignature)
        }
        guard isScalarInRange(value.r) else { throw .malformedSignature(.rOutOfRange) }
        guard isScalarInRange(value.s) else { throw .malformedSignature(.sOutOfRange) }

        var raw = [UInt8](repeating: 0, count: 64)
        raw.replaceSubrange((32 - value.r.count)..<32, with: value.r)
        raw.replaceSubrange((64 - value.s.count)..<64, with: value.s)
        do {
            return try P256.Signing.ECDSASignature(rawRepresentation: raw)
        } catch {
            // Not reachable for 64 bytes; reported as out of range to stay typed.
            throw .malformedSignature(.rOutOfRange)
        }
    }

    /// Reads the usual short-form `30 L 02 Lr r 02 Ls s` directly, with swift-asn1's rules
    /// (minimal, non-negative INTEGERs; exact lengths). `nil` for anything else, which
    /// ``fullParse(_:)`` then judges.
    static func fastParse(_ bytes: [UInt8]) -> ECDSASignatureValue? {
        guard bytes.count >= 8, bytes.count < 0x80 + 2, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2 else {
            return nil
        }
        var index = 2
        func integer() -> ArraySlice<UInt8>? {
            guard index + 2 <= bytes.count, bytes[index] == 0x02 else { return nil }
            let length = Int(bytes[index + 1])
            let start = index + 2
            guard length >= 1, length < 0x80, start + length <= bytes.count else { return nil }
            let first = bytes[start]
            // Negative, or a leading zero octet that is not needed.
            guard first & 0x80 == 0 else { return nil }
            if length > 1, first == 0, bytes[start + 1] & 0x80 == 0 { return nil }
            index = start + length
            return first == 0 ? bytes[(start + 1)..<index] : bytes[start..<index]
        }
        guard let r = integer(), let s = integer(), index == bytes.count else { return nil }
        return ECDSASignatureValue(r: r, s: s)
    }

    /// Parses with swift-asn1 and turns its errors into ``ECDSASignatureFault/notDER(_:)``.
    static func fullParse(_ derSignature: [UInt8]) throws(SignatureVerificationError) -> ECDSASignatureValue {
        do {
            let node = try DERDecoding.parse(derSignature, maximumLength: 1024)
            return try ECDSASignatureValue(derEncoded: node)
        } catch let error as DERFaultError {
            throw .malformedSignature(.notDER(error.fault))
        } catch {
            throw .malformedSignature(.notDER(DERFault(kind: DERDecoding.kind(for: error), structure: .ecdsaSignature)))
        }
    }

    /// Whether a big-endian magnitude without leading zeros is in [1, n-1].
    static func isScalarInRange(_ magnitude: ArraySlice<UInt8>) -> Bool {
        guard !magnitude.isEmpty, magnitude.count <= 32 else { return false }
        guard magnitude.count == 32 else { return true }
        return magnitude.lexicographicallyPrecedes(groupOrder)
    }
}
