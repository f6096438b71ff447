import Foundation
import VerifiableRecords

/// Verifies EU DCCs against a list of trusted Document Signer Certificates.
///
/// Every step reports its own code. Decoding stops at the first step that fails (nothing after
/// it can be read); the checks after decoding all run, so one report names every problem.
public struct DCCVerifier: Sendable {
    /// The DSCs whose signatures are trusted.
    public var trustList: DSCTrustList

    /// Makes a verifier trusting these DSCs.
    public init(trustList: DSCTrustList) {
        self.trustList = trustList
    }

    /// Verifies QR text (`HC1:…`) as of `time`.
    public func verify(_ qrText: String, origin: String = "", at time: Date = Date()) -> DCCVerification {
        let certificate: DigitalCovidCertificate
        do { certificate = try DigitalCovidCertificate(qrText: qrText) } catch {
            return DCCVerification(origin: origin, certificate: nil, signer: nil, errors: [error.issue], warnings: [])
        }
        return verify(certificate, origin: origin, at: time)
    }

    /// Verifies a decoded certificate as of `time`.
    public func verify(_ certificate: DigitalCovidCertificate, origin: String = "", at time: Date = Date()) -> DCCVerification {
        var errors: [VerificationIssue] = []
        var warnings: [VerificationIssue] = []
        let payload = certificate.payload
        let violations = DCCSchema.validate(payload)
        if !violations.isEmpty {
            errors.append(VerificationIssue(.dccSchema, violations.map { $0.description }.joined(separator: "; ")))
        }
        for unknown in DCCValueSets.unknownCodes(payload) { warnings.append(VerificationIssue(.dccValueSet, unknown.description)) }

        let (signer, signatureIssue) = Self.signer(of: certificate.message, in: trustList)
        if let signatureIssue { errors.append(signatureIssue) }
        errors += Self.timeIssues(certificate.claims, at: time)
        if let signer {
            errors += Self.signerIssues(certificate.claims, signer: signer, at: time)
            if let kind = certificate.kind, !signer.allows(kind) {
                errors.append(VerificationIssue(.dccKeyUsage, "the DSC's extended key usage does not allow \(kind.rawValue) certificates"))
            }
        }
        return DCCVerification(origin: origin, certificate: certificate, signer: signer, errors: errors, warnings: warnings)
    }

    /// The CWT's own dates against the verification time: `iat` not after it, `exp` not before it.
    public static func timeIssues(_ claims: CWTClaims, at time: Date) -> [VerificationIssue] {
        var issues: [VerificationIssue] = []
        if time < claims.issuedAt {
            issues.append(VerificationIssue(.dccNotYetValid, "issued at \(text(claims.issuedAt)), after the verification time \(text(time))"))
        }
        if claims.expiration < time {
            issues.append(VerificationIssue(.dccExpired, "expired at \(text(claims.expiration)), before the verification time \(text(time))"))
        }
        return issues
    }

    /// The DSC's validity against the certificate: it must cover `iat` through `exp` (as the
    /// member states' harness requires), and so the verification time when that lies between.
    public static func signerIssues(_ claims: CWTClaims, signer: DocumentSignerCertificate, at time: Date) -> [VerificationIssue] {
        var outside: [String] = []
        if claims.issuedAt < signer.notValidBefore { outside.append("issued before the DSC's validity starts (\(text(signer.notValidBefore)))") }
        if claims.expiration > signer.notValidAfter { outside.append("expires after the DSC's validity ends (\(text(signer.notValidAfter)))") }
        if outside.isEmpty, time < signer.notValidBefore || time > signer.notValidAfter {
            outside.append("the DSC is not valid at the verification time (\(text(signer.notValidBefore)) to \(text(signer.notValidAfter)))")
        }
        return outside.isEmpty ? [] : [VerificationIssue(.dccCertificateValidity, outside.joined(separator: "; "))]
    }

    /// The trusted DSC whose key verifies the message, or why there is none.
    public static func signer(of message: COSESign1, in trustList: DSCTrustList) -> (certificate: DocumentSignerCertificate?, issue: VerificationIssue?) {
        guard let alg = message.algorithm else { return (nil, VerificationIssue(.dccAlgorithm, "no alg (1) in the COSE headers")) }
        guard let algorithm = COSEAlgorithm(rawValue: alg) else {
            return (nil, VerificationIssue(.dccAlgorithm, "alg \(alg) is neither ES256 (-7) nor PS256 (-37)"))
        }
        guard let kid = message.keyIdentifier else { return (nil, VerificationIssue(.dccKeyNotFound, "no kid (4) in the COSE headers")) }
        let candidates = trustList.certificates(keyIdentifier: kid)
        guard !candidates.isEmpty else {
            let count = trustList.certificates.count
            return (nil, VerificationIssue(.dccKeyNotFound, "no trusted DSC has kid \(Data(kid).base64EncodedString()) (\(count) trusted)"))
        }
        let usable = candidates.filter { $0.algorithm == algorithm }
        guard !usable.isEmpty else {
            return (nil, VerificationIssue(.dccAlgorithm, "alg \(algorithm.name) does not fit the DSC's \(candidates[0].algorithm == .es256 ? "EC" : "RSA") key"))
        }
        let signed = message.signedBytes
        if let signer = usable.first(where: { $0.isValidSignature(message.signature, for: signed, algorithm: algorithm) }) { return (signer, nil) }
        let shape = algorithm == .es256 && message.signature.count != 64 ? " (\(message.signature.count) bytes; ES256 in COSE is 64 bytes r‖s)" : ""
        return (nil, VerificationIssue(.dccSignature, "the \(algorithm.name) signature does not verify with the DSC\(shape)"))
    }

    static func text(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
