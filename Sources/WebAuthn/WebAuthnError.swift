import CBOR

/// Why a registration or an assertion was refused; each case names what was wrong.
public enum WebAuthnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `clientDataJSON` is not a JSON object of the expected members (or is over the size cap).
    case clientDataInvalid(reason: String)
    /// The ceremony type is not the one expected (`webauthn.create` or `webauthn.get`).
    case wrongCeremony(expected: String, found: String)
    /// The challenge signed is not the one this server issued.
    case challengeMismatch
    /// The page that ran the ceremony is not this server's.
    case originMismatch(expected: String, found: String)
    /// The ceremony ran in a frame of another site (`crossOrigin` true, or a `topOrigin`).
    case crossOrigin
    /// The authenticator data is shorter than its fixed fields or than what its flags announce.
    case authenticatorDataTruncated(length: Int)
    /// Bytes follow the authenticator data's last field.
    case authenticatorDataTrailingBytes(count: Int)
    /// The credential is scoped to another relying party.
    case relyingPartyMismatch
    /// The authenticator did not test that a user was present.
    case userNotPresent
    /// The authenticator did not verify the user (PIN, biometrics) though this server requires it.
    case userNotVerified
    /// Backup state is set on a credential that says it cannot be backed up.
    case backupStateWithoutEligibility
    /// A registration without attested credential data, or an assertion with it.
    case attestedCredentialData(expected: Bool)
    /// A credential id longer than WebAuthn allows (1023 bytes).
    case credentialIDTooLong(length: Int)
    /// The attestation object or a COSE key is not valid CBOR.
    case cbor(CBORError, in: String)
    /// The attestation object lacks a member or has one of the wrong type.
    case attestationObjectInvalid(reason: String)
    /// An attestation statement format this server does not accept.
    case attestationFormatNotAccepted(String)
    /// The attestation statement's signature or algorithm is wrong.
    case attestationStatementInvalid(reason: String)
    /// The COSE key is malformed (missing parameter, wrong length, not on the curve …).
    case publicKeyInvalid(reason: String)
    /// A COSE algorithm this server does not accept (ES256 −7 and RS256 −257 are).
    case algorithmNotAccepted(Int64)
    /// The assertion's signature does not verify with the registered key (or cannot be read).
    case signatureInvalid
    /// The signature counter did not move forward: a sign of a cloned authenticator.
    case signCountNotIncreased(stored: UInt32, received: UInt32)
    /// The assertion names a credential other than the one it is checked against.
    case credentialMismatch

    public var description: String {
        switch self {
        case .clientDataInvalid(let reason): "clientDataJSON is invalid: \(reason)"
        case .wrongCeremony(let expected, let found): "clientDataJSON has type \"\(found)\", not \"\(expected)\""
        case .challengeMismatch: "the challenge is not the one this server issued (or it was already used)"
        case .originMismatch(let expected, let found): "the origin \"\(found)\" is not this server's (\(expected))"
        case .crossOrigin: "the ceremony ran inside a frame of another origin"
        case .authenticatorDataTruncated(let length): "the authenticator data (\(length) bytes) is truncated"
        case .authenticatorDataTrailingBytes(let count): "\(count) bytes follow the authenticator data"
        case .relyingPartyMismatch: "the credential belongs to another relying party (rpIdHash differs)"
        case .userNotPresent: "the authenticator did not check that a user was present"
        case .userNotVerified: "the authenticator did not verify the user, and this server requires it"
        case .backupStateWithoutEligibility: "the backup state flag is set on a credential that cannot be backed up"
        case .attestedCredentialData(let expected):
            expected ? "the registration carries no attested credential data" : "the assertion carries attested credential data"
        case .credentialIDTooLong(let length): "the credential id is \(length) bytes (at most 1023)"
        case .cbor(let error, let place): "\(place) is not valid CBOR: \(error)"
        case .attestationObjectInvalid(let reason): "the attestation object is invalid: \(reason)"
        case .attestationFormatNotAccepted(let format): "attestation format \"\(format)\" is not accepted (none and packed self-attestation are)"
        case .attestationStatementInvalid(let reason): "the attestation statement is invalid: \(reason)"
        case .publicKeyInvalid(let reason): "the credential public key is invalid: \(reason)"
        case .algorithmNotAccepted(let alg): "COSE algorithm \(alg) is not accepted (ES256 -7 and RS256 -257 are)"
        case .signatureInvalid: "the signature does not verify with the registered key"
        case .signCountNotIncreased(let stored, let received): "the signature counter went from \(stored) to \(received): the authenticator may be cloned"
        case .credentialMismatch: "the assertion is for another credential"
        }
    }
}
