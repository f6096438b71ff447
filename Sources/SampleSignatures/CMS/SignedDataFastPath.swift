import Foundation
import SwiftASN1

/// Reads the common shape of a SignedData — one signer named by subject key
/// identifier, SHA-256 and ecdsa-with-SHA256, `id-data` content, optional
/// signed attributes and certificates — straight from the bytes with
/// ``DERCursor``, without building swift-asn1 nodes.
///
/// It is an optimisation only: it returns `nil` for anything outside that
/// shape or not strictly DER, and ``CMSVerifier`` then runs the full
/// swift-asn1 parse, which reports errors precisely and handles every other
/// shape. Everything it accepts, the full parse accepts with the same meaning
/// (a test checks this on mutated messages).
struct SignedDataFastPath: Hashable {
    /// `eContent`, or `nil` when detached.
    var eContent: ArraySlice<UInt8>?
    var subjectKeyIdentifier: ArraySlice<UInt8>
    var signedAttributes: Attributes?
    /// The `ECDSA-Sig-Value` bytes.
    var signature: ArraySlice<UInt8>

    /// What the signed attributes say.
    struct Attributes: Hashable {
        /// The `[0] IMPLICIT` encoding as received.
        var encoding: ArraySlice<UInt8>
        var messageDigest: ArraySlice<UInt8>
        var signingTime: Date?
    }

    /// DER encodings of the identifiers this path recognises.
    enum Encoded {
        static let signedData = tlv(CMSObjectIdentifier.signedData)
        static let data = tlv(CMSObjectIdentifier.data)
        static let sha256 = tlv(CMSObjectIdentifier.sha256)
        static let ecdsaWithSHA256 = tlv(CMSObjectIdentifier.ecdsaWithSHA256)
        static let contentType = tlv(CMSObjectIdentifier.contentTypeAttribute)
        static let messageDigest = tlv(CMSObjectIdentifier.messageDigestAttribute)
        static let signingTime = tlv(CMSObjectIdentifier.signingTimeAttribute)
        static let null: [UInt8] = [0x05, 0x00]

        private static func tlv(_ oid: ASN1ObjectIdentifier) -> [UInt8] {
            // Serializing a constant OBJECT IDENTIFIER cannot fail.
            try! DEREncoding.encode(oid)
        }
    }

    private enum Tag {
        static let integer: UInt8 = 0x02
        static let octetString: UInt8 = 0x04
        static let objectIdentifier: UInt8 = 0x06
        static let utcTime: UInt8 = 0x17
        static let generalizedTime: UInt8 = 0x18
        static let sequence: UInt8 = 0x30
        static let set: UInt8 = 0x31
        static let context0Primitive: UInt8 = 0x80
        static let context0Constructed: UInt8 = 0xA0
        static let context1Constructed: UInt8 = 0xA1
    }

    /// Reads `bytes` as a ContentInfo of the common shape, or returns `nil`.
    static func read(_ bytes: [UInt8]) -> SignedDataFastPath? {
        var top = DERCursor(bytes)
        guard let contentInfo = top.next(tag: Tag.sequence), top.isAtEnd else { return nil }
        var fields = top.children(of: contentInfo)
        guard let contentType = fields.next(tag: Tag.objectIdentifier), fields.matches(contentType, Encoded.signedData),
            let explicit = fields.next(tag: Tag.context0Constructed), fields.isAtEnd
        else { return nil }
        var wrapper = fields.children(of: explicit)
        guard let signedData = wrapper.next(tag: Tag.sequence), wrapper.isAtEnd else { return nil }
        return readSignedData(top.children(of: signedData))
    }

    private static func readSignedData(_ cursor: DERCursor) -> SignedDataFastPath? {
        var fields = cursor
        // version: 1 or 3, checked against the signer below.
        guard let version = fields.next(tag: Tag.integer), version.content.count == 1 else { return nil }
        let versionNumber = fields.bytes[version.content.lowerBound]

        guard let digestAlgorithms = fields.next(tag: Tag.set), fields.isOrderedSet(digestAlgorithms) else { return nil }
        var algorithms = fields.children(of: digestAlgorithms)
        while !algorithms.isAtEnd {
            guard let algorithm = algorithms.next(), isAlgorithmIdentifier(algorithm, in: fields) else { return nil }
        }

        guard let encapsulated = fields.next(tag: Tag.sequence) else { return nil }
        var encapsulatedFields = fields.children(of: encapsulated)
        guard let eContentType = encapsulatedFields.next(tag: Tag.objectIdentifier),
            encapsulatedFields.matches(eContentType, Encoded.data)
        else { return nil }
        var eContent: ArraySlice<UInt8>?
        if let explicit = encapsulatedFields.optional(tag: Tag.context0Constructed) {
            var inner = encapsulatedFields.children(of: explicit)
            guard let octets = inner.next(tag: Tag.octetString), inner.isAtEnd else { return nil }
            eContent = fields[octets.content]
        }
        guard encapsulatedFields.isAtEnd else { return nil }

        if let certificates = fields.optional(tag: Tag.context0Constructed) {
            // Only X.509 certificates (SEQUENCE); other choices change the version rules.
            guard fields.isOrderedSet(certificates) else { return nil }
            var each = fields.children(of: certificates)
            while !each.isAtEnd {
                guard each.next(tag: Tag.sequence) != nil else { return nil }
            }
        }
        // Revocation information is left to the full parser.
        guard fields.optional(tag: Tag.context1Constructed) == nil else { return nil }

        guard let signerInfos = fields.next(tag: Tag.set), fields.isAtEnd else { return nil }
        var signers = fields.children(of: signerInfos)
        guard let signerInfo = signers.next(tag: Tag.sequence), signers.isAtEnd else { return nil }
        // A SignerInfo v3 (subject key identifier) with id-data requires SignedData v3.
        guard versionNumber == 3 else { return nil }
        return readSignerInfo(fields.children(of: signerInfo), eContent: eContent)
    }

    private static func readSignerInfo(_ cursor: DERCursor, eContent: ArraySlice<UInt8>?) -> SignedDataFastPath? {
        var fields = cursor
        guard let version = fields.next(tag: Tag.integer), fields[version.content].elementsEqual([3]),
            let keyIdentifier = fields.next(tag: Tag.context0Primitive),
            let digestAlgorithm = fields.next(tag: Tag.sequence), isSHA256(digestAlgorithm, in: fields)
        else { return nil }

        var attributes: Attributes?
        if let signedAttributes = fields.optional(tag: Tag.context0Constructed) {
            guard let read = readAttributes(signedAttributes, in: fields) else { return nil }
            attributes = read
        }

        guard let signatureAlgorithm = fields.next(tag: Tag.sequence) else { return nil }
        var algorithm = fields.children(of: signatureAlgorithm)
        guard let oid = algorithm.next(tag: Tag.objectIdentifier), algorithm.matches(oid, Encoded.ecdsaWithSHA256),
            algorithm.isAtEnd
        else { return nil }

        // Unsigned attributes are left to the full parser.
        guard let signature = fields.next(tag: Tag.octetString), fields.isAtEnd else { return nil }
        return SignedDataFastPath(
            eContent: eContent,
            subjectKeyIdentifier: fields[keyIdentifier.content],
            signedAttributes: attributes,
            signature: fields[signature.content]
        )
    }

    /// Signed attributes with exactly one content-type (`id-data`) and one message-digest,
    /// at most one well-formed signing-time, and any other well-formed attributes.
    private static func readAttributes(_ element: DERCursor.Element, in cursor: DERCursor) -> Attributes? {
        var set = cursor.children(of: element)
        guard let attributes = set.setElements() else { return nil }
        var sawContentType = false
        var messageDigest: ArraySlice<UInt8>?
        var signingTime: Date?
        var sawSigningTime = false
        for attribute in attributes {
            guard attribute.tag == Tag.sequence else { return nil }
            var fields = cursor.children(of: attribute)
            guard let type = fields.next(tag: Tag.objectIdentifier), fields.isValidObjectIdentifier(type),
                let values = fields.next(tag: Tag.set), fields.isAtEnd, fields.isOrderedSet(values)
            else { return nil }
            var valueCursor = fields.children(of: values)
            if fields.matches(type, Encoded.contentType) {
                guard !sawContentType, let value = valueCursor.next(tag: Tag.objectIdentifier),
                    valueCursor.isAtEnd, valueCursor.matches(value, Encoded.data)
                else { return nil }
                sawContentType = true
            } else if fields.matches(type, Encoded.messageDigest) {
                guard messageDigest == nil, let value = valueCursor.next(tag: Tag.octetString), valueCursor.isAtEnd else {
                    return nil
                }
                messageDigest = fields[value.content]
            } else if fields.matches(type, Encoded.signingTime) {
                guard !sawSigningTime, let value = valueCursor.next(), valueCursor.isAtEnd,
                    let time = decodeTime(value, in: fields)
                else { return nil }
                sawSigningTime = true
                signingTime = time
            }
        }
        guard sawContentType, let messageDigest else { return nil }
        return Attributes(encoding: cursor[element.encoding], messageDigest: messageDigest, signingTime: signingTime)
    }

    /// Decodes a UTCTime or GeneralizedTime with swift-asn1 (a few dozen bytes).
    private static func decodeTime(_ element: DERCursor.Element, in cursor: DERCursor) -> Date? {
        guard element.tag == Tag.utcTime || element.tag == Tag.generalizedTime,
            let node = try? DER.parse(Array(cursor[element.encoding]))
        else { return nil }
        if element.tag == Tag.utcTime {
            return (try? UTCTime(derEncoded: node)).map { UTCTimestamp($0).date }
        }
        return (try? GeneralizedTime(derEncoded: node)).map { UTCTimestamp(truncating: $0).date }
    }

    /// SHA-256 with absent or NULL parameters.
    private static func isSHA256(_ element: DERCursor.Element, in cursor: DERCursor) -> Bool {
        var fields = cursor.children(of: element)
        guard let oid = fields.next(tag: Tag.objectIdentifier), fields.matches(oid, Encoded.sha256) else { return false }
        if fields.isAtEnd { return true }
        guard let parameters = fields.next(), fields.matches(parameters, Encoded.null) else { return false }
        return fields.isAtEnd
    }

    /// Any AlgorithmIdentifier the full parser accepts: a valid OID and at most one parameter value.
    private static func isAlgorithmIdentifier(_ element: DERCursor.Element, in cursor: DERCursor) -> Bool {
        guard element.tag == Tag.sequence else { return false }
        var fields = cursor.children(of: element)
        guard let oid = fields.next(tag: Tag.objectIdentifier), fields.isValidObjectIdentifier(oid) else { return false }
        if fields.isAtEnd { return true }
        guard let parameters = fields.next(), fields.isWellFormed(parameters) else { return false }
        return fields.isAtEnd
    }
}
