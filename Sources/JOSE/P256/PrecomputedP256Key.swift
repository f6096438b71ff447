import Crypto

/// An ECDSA P-256 public key prepared for verifying many signatures: multiples of the key (and of
/// the generator) are computed once, so each verification is about 66 point additions and one
/// inversion instead of a full double-scalar multiplication.
///
/// This is the fast path for a key that is used over and over (an issuer's key in a verifier).
/// It gives exactly the answers of swift-crypto's `isValidSignature` (r and s must be in 1…n−1,
/// the hash is the whole SHA-256 digest; Wycheproof's P-256 vectors and a differential fuzz target
/// check this). It works on public data only, so it is variable-time by design; never use it with
/// secrets. Preparing a key costs about as much as 40 verifications and holds about 270 KB.
public final class PrecomputedP256Key: Sendable {
    /// The key this was prepared from.
    public let publicKey: P256.Signing.PublicKey
    private let table: P256CombTable

    /// Multiples of the generator, shared by every key.
    private static let generatorTable = P256CombTable(P256AffinePoint(
        x: P256Field.encode(UInt256(hex: "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")),
        y: P256Field.encode(UInt256(hex: "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"))))

    /// Prepares `publicKey` (a point swift-crypto has already checked to be on the curve).
    public init(_ publicKey: P256.Signing.PublicKey) {
        self.publicKey = publicKey
        let point = publicKey.rawRepresentation.withUnsafeBytes { raw in
            P256AffinePoint(x: P256Field.encode(UInt256(bigEndian: raw, offset: 0)), y: P256Field.encode(UInt256(bigEndian: raw, offset: 32)))
        }
        table = P256CombTable(point)
    }

    /// Whether `signature`, 64 bytes r‖s, is an ECDSA signature of SHA-256(`message`) by this key.
    public func isValidSignature(_ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64 else { return false }
        let digest = SHA256.hash(data: message)
        return digest.withUnsafeBytes { isValidSignature(signature, digest: UInt256(bigEndian: $0)) }
    }

    /// Whether `signature` (r‖s) is valid for `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { s in message.withUnsafeBytes { isValidSignature(s, for: $0) } }
    }

    private func isValidSignature(_ signature: UnsafeRawBufferPointer, digest: UInt256) -> Bool {
        typealias N = P256Scalar
        typealias F = P256Field
        let r = UInt256(bigEndian: signature, offset: 0)
        let s = UInt256(bigEndian: signature, offset: 32)
        guard !r.isZero, !s.isZero, r.isLess(than: N.n), s.isLess(than: N.n) else { return false }
        // e is the digest as a number, reduced once (2²⁵⁶ < 2n).
        var e = digest
        if !e.isLess(than: N.n) { e = e.subtracting(N.n).0 }
        let w = N.inverse(N.encode(s))  // s⁻¹, Montgomery form
        let u1 = N.multiply(e, w)  // Montgomery product with a plain factor gives a plain result
        let u2 = N.multiply(r, w)
        let d1 = P256CombTable.digits(u1)
        let d2 = P256CombTable.digits(u2)
        var acc = P256JacobianPoint.identity
        let g = Self.generatorTable
        for row in 0..<P256CombTable.rows {
            acc = g.add(digit: d1[row], row: row, to: acc)
            acc = table.add(digit: d2[row], row: row, to: acc)
        }
        if acc.isIdentity { return false }
        // x(R) mod n = r without an inversion: x(R) = X/Z², so compare r·Z² with X, and (r+n)·Z²
        // too when r + n is still below p.
        let z2 = F.square(acc.z)
        if F.multiply(F.encode(r), z2) == acc.x { return true }
        let (rn, carry) = r.adding(N.n)
        if carry == 0, rn.isLess(than: F.p), F.multiply(F.encode(rn), z2) == acc.x { return true }
        return false
    }
}
