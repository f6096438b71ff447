import Foundation

/// The Document Signer Certificates a verifier trusts, found by `kid`.
///
/// Two certificates may share a `kid` (8 bytes of a hash); both are tried.
public struct DSCTrustList: Sendable {
    /// Every certificate, in the order added.
    public private(set) var certificates: [DocumentSignerCertificate] = []
    private var byKid: [[UInt8]: [Int]] = [:]

    /// Makes a list of these certificates.
    public init(_ certificates: [DocumentSignerCertificate] = []) {
        for c in certificates { add(c) }
    }

    /// Adds a certificate (one already present, by DER, is not added twice).
    public mutating func add(_ certificate: DocumentSignerCertificate) {
        if byKid[certificate.keyIdentifier]?.contains(where: { certificates[$0].der == certificate.der }) == true { return }
        byKid[certificate.keyIdentifier, default: []].append(certificates.count)
        certificates.append(certificate)
    }

    /// The certificates with this `kid`.
    public func certificates(keyIdentifier kid: [UInt8]) -> [DocumentSignerCertificate] {
        (byKid[kid] ?? []).map { certificates[$0] }
    }

    /// Reads the certificates in a file's bytes: PEM (one or several certificates), DER, or
    /// base64 DER (one certificate per line, or one across lines).
    public static func certificates(in data: Data) throws(DSCError) -> [DocumentSignerCertificate] {
        let bytes = [UInt8](data)
        if bytes.first == 0x30 { return [try DocumentSignerCertificate(der: bytes)] }
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw .certificate("neither DER nor text") }
        if text.contains("-----BEGIN CERTIFICATE-----") {
            var found: [DocumentSignerCertificate] = []
            for block in text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst() {
                guard let end = block.range(of: "-----END CERTIFICATE-----") else { throw .certificate("a PEM block has no END line") }
                found.append(try certificate(base64: String(block[..<end.lowerBound])))
            }
            return found
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw .certificate("the file is empty") }
        if lines.count > 1, let each = try? lines.map({ (line) throws(DSCError) in try certificate(base64: line) }) { return each }
        return [try certificate(base64: lines.joined())]
    }

    static func certificate(base64 text: String) throws(DSCError) -> DocumentSignerCertificate {
        let compact = text.filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: compact) else { throw .certificate("not base64") }
        return try DocumentSignerCertificate(der: [UInt8](der))
    }
}
