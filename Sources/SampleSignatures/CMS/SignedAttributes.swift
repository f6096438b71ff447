import Crypto
import Foundation
import SwiftASN1

/// The signed attributes this module writes and checks (RFC 5652 §11).
struct SignedAttributes: Hashable, Sendable {
    var contentType: ASN1ObjectIdentifier
    var messageDigest: ArraySlice<UInt8>
    var signingTime: Date?

    /// Builds the attributes for signing: content-type, message-digest and, if given, signing-time.
    static func make(
        contentType: ASN1ObjectIdentifier,
        digest: SHA256Digest,
        signingTime: Date?
    ) throws(SigningError) -> [Attribute] {
        do {
            var attributes = [
                Attribute(
                    attrType: CMSObjectIdentifier.contentTypeAttribute,
                    attrValues: [try ASN1Any(erasing: contentType)]
                ),
                Attribute(
                    attrType: CMSObjectIdentifier.messageDigestAttribute,
                    attrValues: [try ASN1Any(erasing: ASN1OctetString(contentBytes: ArraySlice(digest)))]
                ),
            ]
            if let signingTime {
                attributes.append(
                    Attribute(
                        attrType: CMSObjectIdentifier.signingTimeAttribute,
                        attrValues: [try timeValue(signingTime)]
                    )
                )
            }
            return attributes
        } catch let error as SigningError {
            throw error
        } catch {
            throw .encodingFailed
        }
    }

    /// UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5652 §11.3), in whole seconds.
    private static func timeValue(_ date: Date) throws -> ASN1Any {
        let seconds = (date.timeIntervalSince1970).rounded(.down)
        guard let time = UTCTimestamp(Date(timeIntervalSince1970: seconds)) else {
            throw SigningError.signingTimeOutOfRange
        }
        if (1950..<2050).contains(time.year) {
            return try ASN1Any(
                erasing: UTCTime(
                    year: time.year, month: time.month, day: time.day,
                    hours: time.hour, minutes: time.minute, seconds: time.second
                )
            )
        }
        return try ASN1Any(erasing: time.generalizedTime)
    }

    /// Reads and checks parsed signed attributes: content-type and message-digest
    /// must each appear once with one value of the right type; signing-time is
    /// optional but checked the same way. Other attributes are allowed and ignored.
    init(validating attributes: [Attribute]) throws(SignatureVerificationError) {
        var contentType: ASN1ObjectIdentifier?
        var messageDigest: ArraySlice<UInt8>?
        var signingTime: Date?
        var sawSigningTime = false
        for attribute in attributes {
            switch attribute.attrType {
            case CMSObjectIdentifier.contentTypeAttribute:
                guard contentType == nil, attribute.attrValues.count == 1,
                    let value = try? ASN1ObjectIdentifier(asn1Any: attribute.attrValues[0])
                else { throw .invalidSignedAttribute(.contentType) }
                contentType = value
            case CMSObjectIdentifier.messageDigestAttribute:
                guard messageDigest == nil, attribute.attrValues.count == 1,
                    let value = try? ASN1OctetString(asn1Any: attribute.attrValues[0])
                else { throw .invalidSignedAttribute(.messageDigest) }
                messageDigest = value.bytes
            case CMSObjectIdentifier.signingTimeAttribute:
                guard !sawSigningTime, attribute.attrValues.count == 1 else {
                    throw .invalidSignedAttribute(.signingTime)
                }
                sawSigningTime = true
                if let utc = try? UTCTime(asn1Any: attribute.attrValues[0]) {
                    signingTime = UTCTimestamp(utc).date
                } else if let generalized = try? GeneralizedTime(asn1Any: attribute.attrValues[0]) {
                    signingTime = UTCTimestamp(truncating: generalized).date
                } else {
                    throw .invalidSignedAttribute(.signingTime)
                }
            default:
                continue
            }
        }
        guard let contentType else { throw .missingSignedAttribute(.contentType) }
        guard let messageDigest else { throw .missingSignedAttribute(.messageDigest) }
        self.contentType = contentType
        self.messageDigest = messageDigest
        self.signingTime = signingTime
    }
}
