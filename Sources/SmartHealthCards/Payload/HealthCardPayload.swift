import ByteEncodings
import FHIR
import Foundation
import VerifiableRecords

/// The claims of a SMART Health Card: `iss`, `nbf`, optional `exp`, and the `vc` object.
///
/// The payload is read into a ``JSONTape``; the bundle becomes a ``JSONObject`` tree only when
/// someone asks for it, so verifying a card never builds one.
public struct HealthCardPayload: Sendable {
    /// The type every health card carries.
    public static let healthCardType = "https://smarthealth.cards#health-card"

    /// `iss`: the issuer URL, compared exactly as a string.
    public let issuer: String
    /// `nbf`: issuance time in seconds since 1970 (fractional allowed).
    public let notBefore: Double
    /// `exp`: expiry in seconds since 1970, when the card has one.
    public let expiration: Double?
    /// `vc.type`.
    public let types: [String]
    /// `vc.credentialSubject.fhirVersion`.
    public let fhirVersion: String?
    /// `vc.rid`: the revocation id, when present.
    public let revocationID: String?
    /// The payload parsed once; ``fhirBundle`` and ``json`` are built from it only when asked for.
    public let tape: JSONTape
    /// The token of `vc.credentialSubject.fhirBundle` in ``tape``.
    public let bundleToken: Int

    /// The inflated payload bytes.
    public var bytes: [UInt8] { tape.bytes }
    /// `vc.credentialSubject.fhirBundle` as a tree.
    public var fhirBundle: JSONObject { tape.object(bundleToken) ?? JSONObject() }
    /// The whole payload as a tree.
    public var json: JSONObject { tape.object(tape.root) ?? JSONObject() }

    /// The issue date: `nbf` as a `Date`.
    public var issuedDate: Date { Date(timeIntervalSince1970: notBefore) }
    /// The expiry date, when there is one.
    public var expirationDate: Date? { expiration.map(Date.init(timeIntervalSince1970:)) }

    /// Reads the claims from inflated payload bytes; problems found on the way are returned
    /// as verification issues, hard failures thrown.
    public init(bytes: [UInt8], limits: JSONLimits = HealthCardPayload.jsonLimits, warnings: inout [VerificationIssue]) throws(PayloadError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw PayloadError(.payloadJSON, "the inflated payload starts with a byte-order mark")
        }
        let t: JSONTape
        do { t = try JSONTape(bytes, limits: limits) } catch { throw PayloadError(.payloadJSON, "payload is not JSON: \(error)") }
        let root = t.root
        guard t.kind(root) == .object else { throw PayloadError(.payloadJSON, "payload is not a JSON object") }
        guard let iss = t.member(root, "iss") else { throw PayloadError(.payloadClaims, "no iss claim") }
        guard let issuer = t.string(iss) else { throw PayloadError(.payloadClaims, "iss is not a string") }
        let nbfToken: Int
        if let v = t.member(root, "nbf") {
            nbfToken = v
        } else if let iat = t.member(root, "iat") {
            // Cards issued before spec 0.4.2 carry iat where nbf is now; still honour them.
            warnings.append(VerificationIssue(.payloadClaims, "legacy iat claim read as nbf (replaced by nbf in spec 0.4.2)"))
            nbfToken = iat
        } else {
            throw PayloadError(.payloadClaims, "no nbf claim")
        }
        guard let nbf = t.double(nbfToken), nbf.isFinite else { throw PayloadError(.payloadClaims, "nbf is not a number") }
        var exp: Double? = nil
        if let e = t.member(root, "exp") {
            guard let v = t.double(e), v.isFinite else { throw PayloadError(.payloadClaims, "exp is not a number") }
            exp = v
        }
        guard let vc = t.member(root, "vc"), t.kind(vc) == .object else { throw PayloadError(.payloadClaims, "no vc object") }
        guard let typeList = t.member(vc, "type"), t.kind(typeList) == .array else { throw PayloadError(.payloadVCType, "vc.type is not an array") }
        var types: [String] = []
        t.forEachElement(typeList) { if let s = t.string($0) { types.append(s) } }
        guard types.contains(HealthCardPayload.healthCardType) else {
            throw PayloadError(.payloadVCType, "vc.type does not contain \(HealthCardPayload.healthCardType)")
        }
        guard let subject = t.member(vc, "credentialSubject"), t.kind(subject) == .object else {
            throw PayloadError(.payloadClaims, "no vc.credentialSubject object")
        }
        let version = t.member(subject, "fhirVersion").flatMap(t.string)
        if version == nil { warnings.append(VerificationIssue(.payloadClaims, "vc.credentialSubject.fhirVersion is missing")) }
        guard let bundle = t.member(subject, "fhirBundle") else { throw PayloadError(.fhirBundle, "no vc.credentialSubject.fhirBundle") }
        guard t.kind(bundle) == .object, let rt = t.member(bundle, "resourceType"), t.keyEquals(rt, "Bundle") else {
            throw PayloadError(.fhirBundle, "fhirBundle is not a FHIR Bundle")
        }
        if let rid = t.member(vc, "rid") {
            guard let s = t.string(rid) else { throw PayloadError(.payloadRID, "vc.rid is not a string") }
            if s.utf8.count > 24 || s.isEmpty || !s.utf8.allSatisfy(Base64URL.isAlphabetByte) {
                warnings.append(VerificationIssue(.payloadRID, "vc.rid must be 1–24 base64url characters"))
            }
            self.revocationID = s
        } else {
            self.revocationID = nil
        }
        if types.contains("VerifiableCredential") {
            warnings.append(VerificationIssue(.payloadVCType, "vc.type should not include VerifiableCredential (omitted since spec 1.0)"))
        }
        self.issuer = issuer
        self.notBefore = nbf
        self.expiration = exp
        self.types = types
        self.fhirVersion = version
        self.tape = t
        self.bundleToken = bundle
    }

    /// Limits for payload JSON: a card's payload is a few KB; files may hold larger bundles.
    public static let jsonLimits = JSONLimits(maxDocumentBytes: RawDeflate.defaultLimit, maxDepth: 64, maxStringBytes: 4 << 20, maxContainerElements: 100_000)
}

/// A payload problem: the code of the failed check and what is wrong.
public struct PayloadError: Error, Sendable, Equatable {
    /// The failed check.
    public let code: VerificationCode
    /// What is wrong.
    public let message: String

    init(_ code: VerificationCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The verification issue for this problem.
    public var issue: VerificationIssue { VerificationIssue(code, message) }
}
