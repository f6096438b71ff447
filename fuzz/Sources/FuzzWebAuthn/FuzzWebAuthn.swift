import ByteEncodings
import CBOR
import WebAuthn

/// The WebAuthn relying-party checks over outside bytes. The first byte picks what the rest is:
/// 0 an attestation object (read, then verified as a registration), 1 authenticator data,
/// 2 client data, 3 a COSE key, 4 a sign-in's authenticator data and signature (the bytes split
/// in half) against a fixed ES256 key. Every input is accepted or refused with a typed error;
/// what reads also reads back the same from its own bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let party = RelyingParty(id: "example.org", origin: "https://example.org", requiresUserVerification: false)
    let client = Array(#"{"type":"webauthn.create","challenge":"AAAA","origin":"https://example.org"}"#.utf8)
    switch data[0] % 5 {
    case 0:
        if let object = try? AttestationObject(bytes) { check(object.authenticatorData) }
        _ = try? party.verifyRegistration(clientDataJSON: client, attestationObject: bytes, challenge: [0, 0, 0])
    case 1:
        if let parsed = try? AuthenticatorData(bytes) { check(parsed) }
    case 2:
        if let parsed = try? CollectedClientData(json: bytes) {
            precondition(parsed.type.utf8.count <= bytes.count && parsed.challenge.count <= bytes.count)
        }
    case 3:
        if let key = try? CredentialPublicKey(cose: bytes) {
            precondition(key.cose == bytes, "a key's COSE bytes are the bytes it was read from")
            precondition(CredentialPublicKey.acceptedAlgorithms.contains(key.algorithm))
            precondition(!key.verifies([], over: bytes), "an empty signature never verifies")
        }
    default:
        let half = bytes.count / 2
        _ = try? party.verifyAssertion(
            credentialID: [1], clientDataJSON: client, authenticatorData: Array(bytes[..<half]), signature: Array(bytes[half...]), challenge: [0, 0, 0],
            registered: [1], publicKey: fixedKey, storedSignCount: 0)
    }
    return 0
}

/// Authenticator data that read is the bytes it came from, and its credential's key reads the
/// same from its own COSE bytes.
func check(_ parsed: AuthenticatorData) {
    precondition(parsed.rpIDHash.count == 32)
    guard let credential = parsed.attestedCredential else { return }
    precondition(credential.credentialID.count <= 1023 && credential.aaguid.count == 16)
    let again: CredentialPublicKey
    do { again = try CredentialPublicKey(cose: credential.publicKey.cose) } catch { preconditionFailure("a read key does not read back: \(error)") }
    precondition(again == credential.publicKey)
    precondition(try! AuthenticatorData(parsed.bytes) == parsed)
}

/// The P-256 key of the WebAuthn specification's none.ES256 example.
let fixedKey: CredentialPublicKey = try! CredentialPublicKey(cose: CBORWriter.encode(.map([
    .init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .integer(-7)), .init(.integer(-1), .unsigned(1)),
    .init(.integer(-2), .bytes(try! Hex.decode("afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61"))),
    .init(.integer(-3), .bytes(try! Hex.decode("930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220"))),
])))
