import Crypto
import Foundation
import SwiftASN1
@testable import SampleSignatures

/// Helpers that take a message apart with the module's internal ASN.1 types,
/// change it, and put it back together, to build precisely broken inputs.
enum CMSSurgery {
    static func parse(_ message: CMSSignedMessage) throws -> ContentInfo {
        try CMSVerifier.parse(message.derRepresentation, maximumLength: 1 << 20)
    }

    static func encode(_ contentInfo: ContentInfo) throws -> CMSSignedMessage {
        CMSSignedMessage(derRepresentation: try DEREncoding.encode(contentInfo))
    }

    /// Parses, applies `change` to the first SignerInfo, re-encodes.
    static func changingSignerInfo(
        _ message: CMSSignedMessage,
        _ change: (inout SignerInfo) throws -> Void
    ) throws -> CMSSignedMessage {
        var contentInfo = try parse(message)
        try change(&contentInfo.signedData.signerInfos[0])
        return try encode(contentInfo)
    }

    /// Replaces the signed attributes and signs them again with `key`, so only the attributes are wrong.
    static func resigningAttributes(
        _ message: CMSSignedMessage,
        key: DeviceSigningKey,
        _ change: (inout [Attribute]) throws -> Void
    ) throws -> CMSSignedMessage {
        try changingSignerInfo(message) { info in
            var attributes = try require(info.signedAttributes)
            try change(&attributes)
            info.signedAttributes = attributes
            let input = try SignerInfo.signedAttributesSigningInput(attributes)
            info.signature = ArraySlice(try key.key.signature(for: SHA256.hash(data: input)).derRepresentation)
        }
    }

    /// Replaces the signature value with an `ECDSA-Sig-Value` of the given r and s bytes.
    static func withSignature(_ message: CMSSignedMessage, r: [UInt8], s: [UInt8]) throws -> CMSSignedMessage {
        try changingSignerInfo(message) { info in
            info.signature = ArraySlice(try DEREncoding.encode(ECDSASignatureValue(r: r[...], s: s[...])))
        }
    }
}

/// Thrown by `#require` replacements in helpers that are not tests.
struct MissingValue: Error {}

func require<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingValue() }
    return value
}
