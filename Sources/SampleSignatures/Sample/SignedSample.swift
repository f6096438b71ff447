import Foundation

/// Signs samples and checks stored samples against their signatures, the
/// HealthKit `HKMetadataKeyDigitalSignature` model: a base64 CMS SignedData
/// whose content is the DER ``SignedSampleContent`` of the sample.
public enum SignedSample {
    /// Signs a sample as a device would, returning the base64 text to store in its metadata.
    ///
    /// - Throws: ``SigningError/invalidSample(_:)`` when the values cannot be encoded.
    public static func sign(
        _ values: SampleValues,
        signer: CMSSigner,
        options: CMSSigningOptions = CMSSigningOptions()
    ) throws(SigningError) -> String {
        let content: SignedSampleContent
        do {
            content = try SignedSampleContent(values)
        } catch {
            throw .invalidSample(error)
        }
        return try signer.sign(content.derRepresentation, options: options).base64EncodedString
    }

    /// Verifies the signature and returns the signed content.
    ///
    /// For a detached signature the content is rebuilt from `values`.
    public static func signedContent(
        of values: SampleValues,
        signature: String,
        verifier: CMSVerifier
    ) throws(SampleSignatureFailure) -> (SignedSampleContent, CMSVerificationResult) {
        let message: CMSSignedMessage
        do {
            message = try CMSSignedMessage(base64Encoded: signature)
        } catch {
            throw .signature(error)
        }
        let result: CMSVerificationResult
        do {
            result = try verifier.verify(message)
        } catch .contentMissing {
            // A detached signature: the signed content is the stored values' encoding.
            let content: [UInt8]
            do {
                content = try SignedSampleContent(values).derRepresentation
            } catch {
                throw .storedValues(error)
            }
            do {
                result = try verifier.verify(message, detachedContent: content)
            } catch {
                throw .signature(error)
            }
        } catch {
            throw .signature(error)
        }
        do {
            return (try SignedSampleContent(derRepresentation: result.content), result)
        } catch {
            throw .signedContent(error)
        }
    }

    /// Checks a stored sample against its base64 signature.
    ///
    /// - Returns: ``SampleVerificationOutcome/valid`` when the signature verifies and every
    ///   stored value equals the signed one; ``SampleVerificationOutcome/tampered(fields:)``
    ///   when the signature verifies but values differ; otherwise
    ///   ``SampleVerificationOutcome/invalid(_:)`` with the reason.
    public static func verify(
        _ values: SampleValues,
        signature: String,
        verifier: CMSVerifier
    ) -> SampleVerificationOutcome {
        let content: SignedSampleContent
        do {
            content = try signedContent(of: values, signature: signature, verifier: verifier).0
        } catch {
            return .invalid(error)
        }
        let fields = differences(between: values, and: content)
        return fields.isEmpty ? .valid : .tampered(fields: fields)
    }

    /// Checks a stored sample against its base64 signature and one trusted key or certificate.
    public static func verify(
        _ values: SampleValues,
        signature: String,
        trusting signer: TrustedSigner
    ) -> SampleVerificationOutcome {
        verify(values, signature: signature, verifier: CMSVerifier(trusting: signer))
    }

    /// The names of the stored fields that differ from the signed content.
    static func differences(between values: SampleValues, and content: SignedSampleContent) -> [String] {
        var fields: [String] = []
        // Text is compared byte for byte (not by Unicode canonical equivalence): the signature covers bytes.
        func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }
        if !same(values.sampleType.rawValue, content.sampleType.rawValue) { fields.append(SampleField.sampleType.rawValue) }
        if !same(values.value, content.value.text) { fields.append(SampleField.value.rawValue) }
        if !same(values.unit, content.unit) { fields.append(SampleField.unit.rawValue) }
        if UTCTimestamp.milliseconds(of: values.startDate) != UTCTimestamp.milliseconds(of: content.startDate) {
            fields.append(SampleField.startDate.rawValue)
        }
        if UTCTimestamp.milliseconds(of: values.endDate) != UTCTimestamp.milliseconds(of: content.endDate) {
            fields.append(SampleField.endDate.rawValue)
        }
        if !same(values.deviceIdentifier, content.deviceIdentifier) { fields.append(SampleField.deviceIdentifier.rawValue) }
        // Both sides in key order; walk them together.
        let stored = values.extras.sorted { SampleExtra.precedes($0.key, $1.key) }
        var storedIndex = 0
        var signedIndex = 0
        while storedIndex < stored.count || signedIndex < content.extras.count {
            let storedPair = storedIndex < stored.count ? stored[storedIndex] : nil
            let signedPair = signedIndex < content.extras.count ? content.extras[signedIndex] : nil
            let key: String
            if let storedPair, let signedPair, same(storedPair.key, signedPair.key) {
                key = storedPair.key
                storedIndex += 1
                signedIndex += 1
                if same(storedPair.value, signedPair.value) { continue }
            } else if let storedPair, signedPair.map({ SampleExtra.precedes(storedPair.key, $0.key) }) ?? true {
                key = storedPair.key
                storedIndex += 1
            } else {
                key = signedPair?.key ?? ""
                signedIndex += 1
            }
            fields.append("\(SampleField.extras.rawValue)[\(key)]")
        }
        return fields
    }
}
