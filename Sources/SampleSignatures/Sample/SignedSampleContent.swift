import Foundation
import SwiftASN1

/// The DER copy of a sample that a device signs: the CMS `eContent`.
///
/// Defined in ASN.1 (see `docs/signed-sample-content.md`) as:
/// ```
/// SignedSampleContent ::= SEQUENCE {
///   version           INTEGER { v1(1) },
///   sampleType        UTF8String (SIZE (1..MAX)),  -- e.g. "HKQuantityTypeIdentifierBloodGlucose"
///   value             PrintableString,             -- exact decimal text, -?[0-9]+(.[0-9]+)?
///   unit              UTF8String (SIZE (1..MAX)),  -- UCUM, e.g. "mmol/L"
///   startDate         GeneralizedTime,             -- UTC, at most millisecond precision
///   endDate           GeneralizedTime,             -- ≥ startDate
///   deviceIdentifier  UTF8String (SIZE (1..MAX)),
///   extras            SEQUENCE SIZE (1..MAX) OF SampleExtra OPTIONAL
///                                                  -- ascending by key (UTF-8 bytes), keys unique;
///                                                  -- omitted when there are none
/// }
/// ```
/// Every choice is fixed (DER, sorted extras, normalised times, exact value
/// text), so a given sample has exactly one encoding. Parsing checks all of
/// it and rejects anything this module would not have written.
public struct SignedSampleContent: DERImplicitlyTaggable, Hashable, Sendable {
    /// `SEQUENCE`.
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    /// The only version defined.
    public static let currentVersion = 1

    /// The format version (1).
    public let version: Int
    /// The HealthKit type identifier; building the content rejects an empty one.
    public let sampleType: SampleTypeIdentifier
    /// The value's exact decimal text.
    public let value: DecimalText
    /// The UCUM unit as given (not converted or checked against the type); building rejects an empty one.
    public let unit: String
    let start: UTCTimestamp
    let end: UTCTimestamp
    /// The measuring device's identifier (e.g. serial number or UDI); building rejects an empty one.
    public let deviceIdentifier: String
    /// Extra key–value pairs in ascending key order.
    public let extras: [SampleExtra]

    /// The start of the sample (millisecond precision).
    public var startDate: Date { start.date }
    /// The end of the sample (millisecond precision).
    public var endDate: Date { end.date }

    /// Builds the content for a sample. Dates are rounded to the nearest millisecond.
    ///
    /// - Throws: ``SampleContentError`` when the value is not an exact decimal, a text
    ///   field is empty, a date is out of range, or the end is before the start.
    public init(_ values: SampleValues) throws(SampleContentError) {
        guard !values.sampleType.rawValue.isEmpty else { throw .emptyField(.sampleType) }
        guard !values.unit.isEmpty else { throw .emptyField(.unit) }
        guard !values.deviceIdentifier.isEmpty else { throw .emptyField(.deviceIdentifier) }
        guard let start = UTCTimestamp(values.startDate) else { throw .dateOutOfRange(.startDate) }
        guard let end = UTCTimestamp(values.endDate) else { throw .dateOutOfRange(.endDate) }
        guard start.date <= end.date else { throw .endBeforeStart }
        var extras: [SampleExtra] = []
        for key in values.extras.keys.sorted(by: SampleExtra.precedes) {
            extras.append(try SampleExtra(key: key, value: values.extras[key] ?? ""))
        }
        self.version = Self.currentVersion
        self.sampleType = values.sampleType
        self.value = try DecimalText(values.value)
        self.unit = values.unit
        self.start = start
        self.end = end
        self.deviceIdentifier = values.deviceIdentifier
        self.extras = extras
    }

    /// Parses and validates DER bytes.
    ///
    /// - Throws: ``SampleContentError/malformedDER(_:)`` for bytes that are not strict DER or
    ///   not shaped like `SignedSampleContent`, and the other cases for invalid field values.
    public init(derRepresentation bytes: some DataProtocol) throws(SampleContentError) {
        do {
            self = try SignedSampleContent(derEncoded: DERDecoding.parse([UInt8](bytes)))
        } catch let error as SampleContentError {
            throw error
        } catch let error as DERFaultError {
            throw .malformedDER(error.fault)
        } catch {
            throw .malformedDER(DERFault(kind: DERDecoding.kind(for: error), structure: .signedSampleContent))
        }
    }

    /// Parses a `SignedSampleContent` node.
    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.signedSampleContent, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let version = try Int(derEncoded: &nodes)
                guard version == Self.currentVersion else { throw SampleContentError.unsupportedVersion(version) }
                let sampleType = try ASN1UTF8String(derEncoded: &nodes).validatedString(.sampleType)
                let valueBytes = try ASN1PrintableString(derEncoded: &nodes).bytes
                let value = try DecimalText(String(decoding: valueBytes, as: UTF8.self))
                let unit = try ASN1UTF8String(derEncoded: &nodes).validatedString(.unit)
                let start = try Self.timestamp(GeneralizedTime(derEncoded: &nodes), .startDate)
                let end = try Self.timestamp(GeneralizedTime(derEncoded: &nodes), .endDate)
                let deviceIdentifier = try ASN1UTF8String(derEncoded: &nodes).validatedString(.deviceIdentifier)
                let extras = try nodes.next().map { node in
                    try DER.sequence(of: SampleExtra.self, identifier: .sequence, rootNode: node)
                }
                return try SignedSampleContent(
                    version: version, sampleType: sampleType, value: value, unit: unit,
                    start: start, end: end, deviceIdentifier: deviceIdentifier, extras: extras
                )
            }
        }
    }

    /// Checks the rules the DER grammar cannot express.
    private init(
        version: Int, sampleType: String, value: DecimalText, unit: String,
        start: UTCTimestamp, end: UTCTimestamp, deviceIdentifier: String, extras: [SampleExtra]?
    ) throws(SampleContentError) {
        guard !sampleType.isEmpty else { throw .emptyField(.sampleType) }
        guard !unit.isEmpty else { throw .emptyField(.unit) }
        guard !deviceIdentifier.isEmpty else { throw .emptyField(.deviceIdentifier) }
        guard start.date <= end.date else { throw .endBeforeStart }
        if let extras {
            guard !extras.isEmpty else { throw .emptyExtras }
            for (previous, next) in zip(extras, extras.dropFirst()) where !SampleExtra.precedes(previous.key, next.key) {
                throw .extrasNotSorted
            }
        }
        self.version = version
        self.sampleType = SampleTypeIdentifier(rawValue: sampleType)
        self.value = value
        self.unit = unit
        self.start = start
        self.end = end
        self.deviceIdentifier = deviceIdentifier
        self.extras = extras ?? []
    }

    private static func timestamp(_ time: GeneralizedTime, _ field: SampleField) throws(SampleContentError) -> UTCTimestamp {
        guard let timestamp = UTCTimestamp(time) else { throw .subMillisecondPrecision(field) }
        guard (1...9999).contains(timestamp.year) else { throw .dateOutOfRange(field) }
        return timestamp
    }

    /// Serializes as `SignedSampleContent`.
    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(version)
            try coder.serialize(ASN1UTF8String(sampleType.rawValue))
            try coder.serialize(ASN1PrintableString(value.text))
            try coder.serialize(ASN1UTF8String(unit))
            try coder.serialize(start.generalizedTime)
            try coder.serialize(end.generalizedTime)
            try coder.serialize(ASN1UTF8String(deviceIdentifier))
            if !extras.isEmpty {
                try coder.serializeSequenceOf(extras)
            }
        }
    }

    /// The DER encoding: the bytes a device signs.
    public var derRepresentation: [UInt8] {
        // Every field was validated on construction, so serialization cannot fail.
        try! DEREncoding.encode(self)
    }

    /// The extras as a dictionary.
    public var extrasDictionary: [String: String] {
        Dictionary(uniqueKeysWithValues: extras.map { ($0.key, $0.value) })
    }
}
