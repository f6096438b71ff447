import CBOR

/// What an authenticator returns at registration (WebAuthn §6.5): the attestation statement's
/// format, the statement and the authenticator data.
public struct AttestationObject: Sendable, Hashable {
    /// `none`, `packed`, `tpm` …
    public let format: String
    /// The statement, as a CBOR map.
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    /// The most bytes read (a certificate chain is a few kilobytes).
    public static let maximumLength = 64 * 1024

    /// Reads an attestation object.
    ///
    /// - Throws: ``WebAuthnError/cbor(_:in:)``, ``WebAuthnError/attestationObjectInvalid(reason:)``
    ///   and the authenticator data's errors.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= Self.maximumLength else { throw .attestationObjectInvalid(reason: "longer than \(Self.maximumLength) bytes") }
        let value: CBORValue
        do { value = try CBORReader.decode(bytes, limits: .init(maxDepth: 8, maxItems: 1024)) } catch { throw .cbor(error, in: "the attestation object") }
        guard value.mapEntries != nil else { throw .attestationObjectInvalid(reason: "not a map") }
        guard let format = value["fmt"]?.text else { throw .attestationObjectInvalid(reason: "no fmt text") }
        guard let statement = value["attStmt"], statement.mapEntries != nil else { throw .attestationObjectInvalid(reason: "no attStmt map") }
        guard let authData = value["authData"]?.bytes else { throw .attestationObjectInvalid(reason: "no authData bytes") }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(authData)
    }
}
