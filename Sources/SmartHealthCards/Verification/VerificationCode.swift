/// A stable code for one verification check, e.g. `signature.invalid`.
///
/// The vocabulary is documented in `docs/verification-codes.md`; codes never change meaning.
public struct VerificationCode: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let inputNoCard: VerificationCode = "input.noCard"
    public static let jwsMalformed: VerificationCode = "jws.malformed"
    public static let jwsTrailingCharacters: VerificationCode = "jws.trailingCharacters"
    public static let jwsHeaderAlg: VerificationCode = "jws.header.alg"
    public static let jwsHeaderZip: VerificationCode = "jws.header.zip"
    public static let jwsHeaderKid: VerificationCode = "jws.header.kid"
    public static let jwsTooLong: VerificationCode = "jws.tooLong"
    public static let signatureFormat: VerificationCode = "signature.format"
    public static let signatureInvalid: VerificationCode = "signature.invalid"
    public static let payloadInflate: VerificationCode = "payload.inflate"
    public static let payloadJSON: VerificationCode = "payload.json"
    public static let payloadClaims: VerificationCode = "payload.claims"
    public static let payloadVCType: VerificationCode = "payload.vcType"
    public static let payloadRID: VerificationCode = "payload.rid"
    public static let timeNotYetValid: VerificationCode = "time.notYetValid"
    public static let timeExpired: VerificationCode = "time.expired"
    public static let timeUnits: VerificationCode = "time.units"
    public static let issuerURL: VerificationCode = "issuer.url"
    public static let issuerUntrusted: VerificationCode = "issuer.untrusted"
    public static let issuerTrustPolicy: VerificationCode = "issuer.trustPolicy"
    public static let issuerKeysUnavailable: VerificationCode = "issuer.keysUnavailable"
    public static let keyNotFound: VerificationCode = "key.notFound"
    public static let keyInvalid: VerificationCode = "key.invalid"
    public static let keyX5C: VerificationCode = "key.x5c"
    public static let revoked: VerificationCode = "revoked"
    public static let revocationUnavailable: VerificationCode = "revocation.unavailable"
    public static let revocationList: VerificationCode = "revocation.list"
    public static let revocationRIDMalformed: VerificationCode = "revocation.ridMalformed"
    public static let revocationRIDDuplicate: VerificationCode = "revocation.ridDuplicate"
    public static let qrHeader: VerificationCode = "qr.header"
    public static let qrNumeric: VerificationCode = "qr.numeric"
    public static let qrChunks: VerificationCode = "qr.chunks"
    public static let qrSegments: VerificationCode = "qr.segments"
    public static let qrVersion: VerificationCode = "qr.version"
    public static let fhirBundle: VerificationCode = "fhir.bundle"
    public static let fhirReferences: VerificationCode = "fhir.references"
    public static let fhirEmptyElement: VerificationCode = "fhir.emptyElement"
    public static let fhirFullUrl: VerificationCode = "fhir.fullUrl"
    public static let fhirBundleType: VerificationCode = "fhir.bundleType"
    public static let fhirPatient: VerificationCode = "fhir.patient"
    public static let fhirNotMinimized: VerificationCode = "fhir.notMinimized"
    public static let fhirImmunization: VerificationCode = "fhir.immunization"
}

/// One failed check or warning: a stable code and a message for people.
public struct VerificationIssue: Sendable, Hashable, CustomStringConvertible {
    /// The stable code, e.g. `fhir.references`: what to match on, unlike ``message``.
    public let code: VerificationCode
    /// What is wrong, for people.
    public let message: String

    /// Makes an issue; any code is accepted, not only the constants ``VerificationCode`` declares.
    public init(_ code: VerificationCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
