import ByteEncodings
import Crypto
import Foundation
import SmartHealthCards

/// Turns the store's anchors into the opaque anchors one app sees, and back.
///
/// The store numbers every change with one counter, so a plain anchor would tell an app how
/// many records it may not see were written in between. An app's anchor is instead the store
/// anchor sealed with a key only this store holds, derived per app: deterministic (the same
/// position gives the same token, so apps can compare what they kept), authenticated (a token
/// altered, made up or taken from another app is refused), and as long for anchor 5 as for
/// anchor 5 million.
///
/// The construction is SIV-like: the nonce is an HMAC of the anchor, and the anchor is sealed
/// with ChaCha20-Poly1305 under that nonce, so equal anchors give equal tokens and nothing else
/// repeats.
public struct AnchorSealer: Sendable {
    private let secret: SymmetricKey

    /// Makes a sealer over the store's anchor secret (``ConsentStorage/anchorSecret()``).
    public init(secret: Data) {
        self.secret = SymmetricKey(data: secret)
    }

    /// A fresh 256-bit secret, made once when a store is created or migrated.
    package static func newSecret() -> Data { SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) } }

    private func keys(appID: String) -> (nonce: SymmetricKey, seal: SymmetricKey) {
        let info = Data("healthrecords anchor v1 ".utf8) + Data(appID.utf8)
        let both = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: info, outputByteCount: 64)
        return both.withUnsafeBytes { b in (SymmetricKey(data: Data(b.prefix(32))), SymmetricKey(data: Data(b.suffix(32)))) }
    }

    /// The token one app sees for a store anchor.
    public func token(_ anchor: QueryAnchor, appID: String) -> String {
        let k = keys(appID: appID)
        let plain = withUnsafeBytes(of: anchor.rawValue.bigEndian) { Data($0) }
        let nonceBytes = Data(HMAC<SHA256>.authenticationCode(for: plain, using: k.nonce)).prefix(12)
        // A 12-byte nonce is always accepted, and sealing in memory cannot fail otherwise.
        let box = try! ChaChaPoly.seal(plain, using: k.seal, nonce: try! ChaChaPoly.Nonce(data: nonceBytes))
        return Base64URL.encode(nonceBytes + box.ciphertext + box.tag)
    }

    /// The store anchor behind one app's token.
    ///
    /// - Throws: ``ConsentError/invalidAnchor`` for a token that is malformed, altered, or not
    ///   made for this app.
    public func anchor(_ token: String, appID: String) throws(ConsentError) -> QueryAnchor {
        guard token.utf8.count == 48, let bytes = try? Base64URL.decode(token), bytes.count == 36 else { throw .invalidAnchor }
        let raw = Data(bytes)
        let k = keys(appID: appID)
        guard let nonce = try? ChaChaPoly.Nonce(data: raw.prefix(12)),
            let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: raw.dropFirst(12).prefix(8), tag: raw.suffix(16)),
            let plain = try? ChaChaPoly.open(box, using: k.seal), plain.count == 8,
            Data(HMAC<SHA256>.authenticationCode(for: plain, using: k.nonce)).prefix(12) == raw.prefix(12)
        else { throw .invalidAnchor }
        let value = plain.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard value >= 0 else { throw .invalidAnchor }
        return QueryAnchor(rawValue: value)
    }
}
