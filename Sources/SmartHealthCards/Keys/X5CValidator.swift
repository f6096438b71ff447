import Crypto
import Foundation
import JOSE
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Checks a key's `x5c` certificate chain: linkage, the leaf's URI SAN against `iss`, the leaf's
/// key against the JWK, and — when roots are configured — a full RFC 5280 path at the
/// verification time.
public struct X5CValidator: Sendable {
    /// The outcome for one chain.
    public struct Report: Sendable {
        /// Hard failures: broken, mismatched, bound to another URI, or (with roots) not valid.
        public var errors: [String] = []
        /// Descriptions and soft findings (expiry without roots, no roots configured).
        public var warnings: [String] = []
    }

    /// The trust anchors; empty means the chain is described but does not decide validity.
    public let roots: [Certificate]

    /// Makes a validator; with no roots, chains are described and checked for linkage but never judged valid.
    public init(roots: [Certificate] = []) {
        self.roots = roots
    }

    /// Makes a validator from PEM texts of root certificates (one text may hold several).
    public init(pemRoots: [String]) throws {
        self.roots = try pemRoots.flatMap { try Self.certificates(pem: $0) }
    }

    /// Reads PEM certificates (one file may hold several).
    public static func certificates(pem: String) throws -> [Certificate] {
        try PEMDocument.parseMultiple(pemString: pem).map { try Certificate(pemEncoded: $0.pemString) }
    }

    /// Validates a chain for a key of an issuer at a time.
    public func validate(chain: [String], key: JSONWebKey, issuer: String, at time: Date) async -> Report {
        var report = Report()
        var certificates: [Certificate] = []
        for (i, b64) in chain.enumerated() {
            guard let der = Data(base64Encoded: b64) else {
                report.errors.append("x5c[\(i)] is not standard base64")
                return report
            }
            do { certificates.append(try Certificate(derEncoded: Array(der))) } catch {
                report.errors.append("x5c[\(i)] is not an X.509 certificate: \(error)")
                return report
            }
        }
        guard let leaf = certificates.first else {
            report.errors.append("x5c is empty")
            return report
        }
        // The leaf must speak for this issuer, with this key.
        let uris = (try? leaf.extensions.subjectAlternativeNames)??.compactMap { name -> String? in
            if case .uniformResourceIdentifier(let u) = name { return u }
            return nil
        } ?? []
        if !uris.contains(issuer) {
            report.errors.append(uris.isEmpty
                ? "the leaf certificate has no URI subject alternative name (iss \(issuer))"
                : "the leaf certificate is bound to \(uris.joined(separator: ", ")), not \(issuer)")
        }
        if let jwkKey = try? key.p256PublicKey() {
            if leaf.publicKey != Certificate.PublicKey(jwkKey) { report.errors.append("the leaf certificate's key is not the JWK's key") }
        }
        for i in 0..<(certificates.count - 1) where !certificates[i + 1].publicKey.isValidSignature(certificates[i].signature, for: certificates[i]) {
            report.errors.append("x5c[\(i)] is not signed by x5c[\(i + 1)]: the chain is broken")
        }
        let subject = leaf.subject.description
        let validity = "valid \(Self.day(leaf.notValidBefore)) to \(Self.day(leaf.notValidAfter))"
        let expired = leaf.notValidAfter < time || leaf.notValidBefore > time
        if roots.isEmpty {
            report.warnings.append("x5c chain of \(certificates.count) (leaf \(subject), \(validity)) not checked against a trust anchor: no root configured")
            if expired { report.warnings.append("the x5c leaf certificate is not valid at \(Self.day(time)) (\(validity))") }
            return report
        }
        guard report.errors.isEmpty else { return report }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(Array(certificates.dropFirst())))
        switch result {
        case .validCertificate:
            break
        case .couldNotValidate(let failures):
            if expired {
                report.errors.append("the x5c leaf certificate has expired or is not yet valid at \(Self.day(time)) (\(validity))")
            } else {
                let reasons = failures.map { "\($0.policyFailureReason)" }.prefix(3).joined(separator: "; ")
                report.errors.append("the x5c chain does not validate to a configured root: \(reasons.isEmpty ? "no path" : reasons)")
            }
        }
        return report
    }

    static func day(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        return f.string(from: d)
    }
}
