import Foundation
import SampleSignatures

extension QuantitySample {
    /// The values a device signs for this sample: type, value, unit, dates, device identifier,
    /// and every metadata entry except the signature itself as `extras`.
    ///
    /// A sample without a device maps to an empty device identifier, which cannot be signed and
    /// which a verification reports as a tampered `deviceIdentifier`.
    public var signedValues: SampleValues {
        var extras = metadata
        extras[SampleMetadataKey.digitalSignature] = nil
        return SampleValues(
            sampleType: type.sampleTypeIdentifier, value: value, unit: unit, startDate: startDate, endDate: endDate,
            deviceIdentifier: device?.identifier ?? "", extras: extras)
    }

    /// A copy carrying a digital signature made as a device would make it.
    ///
    /// - Throws: ``SigningError/invalidSample(_:)`` when the sample has no device (the signed
    ///   content names one), and the signer's other errors.
    public func signed(by signer: CMSSigner, options: CMSSigningOptions = CMSSigningOptions()) throws(SigningError) -> QuantitySample {
        let signature = try SignedSample.sign(signedValues, signer: signer, options: options)
        return settingMetadata(SampleMetadataKey.digitalSignature, to: signature)
    }

    /// Checks the sample's digital signature and that the stored values are the signed ones.
    ///
    /// - Returns: `nil` for an unsigned sample; otherwise ``SampleVerificationOutcome/valid``,
    ///   ``SampleVerificationOutcome/tampered(fields:)`` naming the fields that differ from the
    ///   signed content, or ``SampleVerificationOutcome/invalid(_:)`` with the reason.
    public func verifySignature(with verifier: CMSVerifier) -> SampleVerificationOutcome? {
        guard let signature = digitalSignature else { return nil }
        return SignedSample.verify(signedValues, signature: signature, verifier: verifier)
    }
}
