import Foundation

/// A passkey the person enrolled: a WebAuthn credential of this server's relying party.
public struct StoredPasskey: Sendable, Hashable {
    /// The authenticator's credential id (random bytes, at most 1023).
    public let credentialID: Data
    /// The credential's public key as COSE_Key bytes.
    public let publicKey: Data
    /// The signature counter last seen (0 for authenticators that keep none).
    public let signCount: UInt32
    /// The person's name for it ("Laptop", "Phone"); sealed in the store.
    public let name: String
    public let created: Date
    /// The last sign-in with it; `nil` before the first.
    public let lastUsed: Date?
    /// Whether it may be synced to the person's other devices.
    public let backupEligible: Bool

    /// The longest name kept, in characters.
    public static let maximumNameLength = 60

    /// Describes a passkey; a blank name becomes "Passkey", a long one is cut.
    public init(credentialID: Data, publicKey: Data, signCount: UInt32, name: String, created: Date, lastUsed: Date? = nil, backupEligible: Bool) {
        (self.credentialID, self.publicKey, self.signCount, self.created, self.lastUsed, self.backupEligible) =
            (credentialID, publicKey, signCount, created, lastUsed, backupEligible)
        self.name = Self.cleanName(name)
    }

    /// A name as kept: trimmed, at most ``maximumNameLength`` characters, "Passkey" when blank.
    public static func cleanName(_ name: String) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "Passkey" : String(trimmed.prefix(maximumNameLength))
    }
}

/// The person's passkeys and one-time recovery codes. Every check that must hold across
/// processes is one statement: a counter moves only forward, a recovery code is used once.
public protocol PasskeyStorage: Sendable {
    /// Stores a new passkey; `false` when its credential id is already enrolled.
    func insertPasskey(_ passkey: StoredPasskey) async throws -> Bool
    /// Every passkey, oldest first.
    func passkeys() async throws -> [StoredPasskey]
    /// The passkey with a credential id.
    func passkey(credentialID: Data) async throws -> StoredPasskey?
    /// Records a sign-in: stores the new counter and the date, only when the counter moved
    /// forward from the stored one (or both are 0). `false` when it did not, or the passkey
    /// is gone: the sign-in must then fail (a replay, or a cloned authenticator).
    func recordPasskeyUse(credentialID: Data, signCount: UInt32, at date: Date) async throws -> Bool
    /// Renames a passkey; `false` when there is none with that id.
    func renamePasskey(credentialID: Data, to name: String) async throws -> Bool
    /// Removes a passkey; `false` when there is none with that id.
    func deletePasskey(credentialID: Data) async throws -> Bool
    /// Replaces every recovery code with new ones, given as digests.
    func replaceRecoveryCodes(digests: [Data]) async throws
    /// Uses a recovery code by its digest: `true` once, then never again.
    func useRecoveryCode(digest: Data) async throws -> Bool
    /// How many recovery codes are left.
    func recoveryCodesLeft() async throws -> Int
}
