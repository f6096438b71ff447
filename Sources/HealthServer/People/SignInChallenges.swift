import Crypto
import Foundation

/// The passkey sign-in challenges of the front of a server for many people: signed, not stored.
///
/// When a browser asks to sign in with a passkey nobody knows yet whose passkey will answer, so
/// the challenge cannot go into a person's store, and keeping it in a server-wide table would
/// make every sign-in a write all people share. Instead the challenge carries its own expiry and
/// an HMAC under a server secret every process reads from the database
/// (``PeopleRegistry/serverSecret(_:)``): any process can check it, and the person's store
/// records it when it is used, so it is taken once (``PasskeyCeremonies/signIn(_:signedChallenges:)``).
///
/// Layout: 16 random bytes, the expiry in seconds since 1970 (8 bytes, big-endian), and the
/// first 16 bytes of HMAC-SHA256 over a label and the first 24.
struct SignInChallenges: Sendable {
    let key: SymmetricKey
    let lifetime: TimeInterval

    init(secret: Data, lifetime: TimeInterval = PasskeyCeremonies.challengeLifetime) {
        key = SymmetricKey(data: secret)
        self.lifetime = lifetime
    }

    private static let label = Array("healthrecords passkey sign-in\u{0}".utf8)

    /// A new challenge, good until `now` plus the lifetime.
    func make(now: Date) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let expiry = UInt64(max(0, (now.timeIntervalSince1970 + lifetime).rounded(.up)))
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: expiry >> UInt64(shift))) }
        return bytes + mac(bytes)
    }

    /// When a challenge this server signed expires; `nil` when it is not one, or has expired.
    func expiry(of challenge: [UInt8], now: Date) -> Date? {
        guard challenge.count == 40 else { return nil }
        let signed = Array(challenge[0..<24])
        let expected = mac(signed)
        var difference: UInt8 = 0
        for (a, b) in zip(expected, challenge[24...]) { difference |= a ^ b }
        guard difference == 0 else { return nil }
        let seconds = signed[16..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let expiry = Date(timeIntervalSince1970: TimeInterval(seconds))
        return expiry > now ? expiry : nil
    }

    private func mac(_ bytes: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Self.label + bytes, using: key)).prefix(16).map { $0 }
    }
}
