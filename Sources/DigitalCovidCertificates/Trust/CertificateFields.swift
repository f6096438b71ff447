import Foundation
import SwiftASN1
import X509

/// The fields of an X.509 certificate a DSC needs, read straight from its DER.
///
/// DSCs are trusted because they are listed, not because of who signed them, so the
/// certificate's own signature is never checked — and its signature algorithm (RSASSA-PSS with
/// parameters, ECDSA with SHA-1, both in the member states' test data) must not stop it being
/// read, as it stops swift-certificates' `Certificate`. Trailing bytes after the certificate
/// (one test certificate has them) are cut off, as OpenSSL and Python's `cryptography` do; the
/// `kid` is computed over the certificate alone.
struct CertificateFields {
    /// The certificate's own DER, without anything after it.
    let der: [UInt8]
    let notValidBefore: Date
    let notValidAfter: Date
    let subject: DistinguishedName
    let publicKey: Certificate.PublicKey
    /// The OIDs of the extended-key-usage extension, dotted; empty without one.
    let extendedKeyUsages: [String]

    static let extendedKeyUsageOID: ASN1ObjectIdentifier = [2, 5, 29, 37]

    init(der input: [UInt8]) throws {
        let der = Self.firstElement(input)
        let root = try DER.parse(der)
        var fields: (Date, Date, DistinguishedName, Certificate.PublicKey, [String])?
        try DER.sequence(root, identifier: .sequence) { certificate in
            guard let tbs = certificate.next() else { throw ASN1Error.invalidASN1Object(reason: "no TBSCertificate") }
            fields = try DER.sequence(tbs, identifier: .sequence) { nodes in
                _ = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { $0 }
                guard nodes.next() != nil, nodes.next() != nil, nodes.next() != nil,  // serial, signature, issuer
                    let validity = nodes.next(), let subjectNode = nodes.next(), let spki = nodes.next()
                else { throw ASN1Error.invalidASN1Object(reason: "TBSCertificate too short") }
                let (notBefore, notAfter) = try DER.sequence(validity, identifier: .sequence) { times in
                    guard let a = times.next(), let b = times.next() else { throw ASN1Error.invalidASN1Object(reason: "validity") }
                    return (try Self.time(a), try Self.time(b))
                }
                let subject = try DistinguishedName(derEncoded: subjectNode)
                let key = try Certificate.PublicKey(derEncoded: spki)
                var usages: [String] = []
                while let node = nodes.next() {
                    guard node.identifier == ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific) else { continue }
                    guard case .constructed(let inner) = node.content, let list = inner.first(where: { _ in true }) else { continue }
                    try DER.sequence(list, identifier: .sequence) { extensions in
                        while let ext = extensions.next() {
                            try DER.sequence(ext, identifier: .sequence) { parts in
                                guard let oidNode = parts.next() else { return }
                                let oid = try ASN1ObjectIdentifier(derEncoded: oidNode)
                                var value = parts.next()
                                if value?.identifier == .boolean { value = parts.next() }
                                while parts.next() != nil {}
                                guard oid == Self.extendedKeyUsageOID, let value else { return }
                                let octets = try ASN1OctetString(derEncoded: value)
                                let list = try DER.sequence(of: ASN1ObjectIdentifier.self, identifier: .sequence, rootNode: DER.parse(octets.bytes))
                                usages = list.map { String(describing: $0) }
                            }
                        }
                    }
                }
                return (notBefore, notAfter, subject, key, usages)
            }
            while certificate.next() != nil {}
        }
        guard let fields else { throw ASN1Error.invalidASN1Object(reason: "no TBSCertificate") }
        self.der = der
        (notValidBefore, notValidAfter, subject, publicKey, extendedKeyUsages) = fields
    }

    /// The bytes of the first DER element (its tag, length and contents); the input unchanged
    /// when its length cannot be read (the parser then reports what is wrong).
    static func firstElement(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 2 else { return bytes }
        let first = Int(bytes[1])
        var length = first
        var header = 2
        if first & 0x80 != 0 {
            let n = first & 0x7F
            guard (1...4).contains(n), bytes.count >= 2 + n else { return bytes }
            length = bytes[2..<2 + n].reduce(0) { $0 << 8 | Int($1) }
            header = 2 + n
        }
        guard header + length <= bytes.count else { return bytes }
        return Array(bytes[0..<header + length])
    }

    /// UTCTime or GeneralizedTime, as a date.
    static func time(_ node: ASN1Node) throws -> Date {
        let parts: (Int, Int, Int, Int, Int, Int)
        if node.identifier == .utcTime {
            let t = try UTCTime(derEncoded: node)
            parts = (t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
        } else {
            let t = try GeneralizedTime(derEncoded: node)
            parts = (t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? .current
        let components = DateComponents(year: parts.0, month: parts.1, day: parts.2, hour: parts.3, minute: parts.4, second: parts.5)
        guard let date = calendar.date(from: components) else { throw ASN1Error.invalidASN1Object(reason: "a time out of range") }
        return date
    }
}
