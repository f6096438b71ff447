import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import SampleSignatures

struct SamplesAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Save a quantity sample, optionally signing it as its device would.",
        discussion: """
            With --sign-key the sample's DER content (type, value, unit, dates, device, metadata) is \
            signed as a CMS SignedData and its base64 stored in the HKMetadataKeyDigitalSignature \
            metadata. A signature can also be given as --metadata HKMetadataKeyDigitalSignature=BASE64; \
            a malformed one is stored and marked, never a reason to drop the sample.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Quantity type: \(QuantityType.allValueStrings.joined(separator: ", ")).")
    var type: QuantityType

    @Option(help: "The value as exact decimal text, e.g. 5.40.")
    var value: String

    @Option(help: "The UCUM unit, e.g. mmol/L, mg/dL, mm[Hg], kg, Cel, /min, %.")
    var unit: String

    @Option(help: "When the measurement started (ISO 8601, FHIR date or epoch seconds).")
    var start: DateArgument

    @Option(help: "When it ended (default: the start).")
    var end: DateArgument?

    @Option(help: "The measuring device's identifier (serial number or UDI); needed to sign.")
    var device: String?

    @Option(help: "The source that saves the sample.")
    var source = "healthrecords"

    @Option(help: "Metadata as KEY=VALUE (repeatable).")
    var metadata: [KeyValueArgument] = []

    @Option(help: "The sample's UUID (default: a new one).")
    var uuid: String?

    @Option(name: .customLong("sign-key"), help: "Sign the sample with this P-256 private key (PEM or DER).")
    var signKey: String?

    @OptionGroup var signing: SigningOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func validate() throws {
        if signKey == nil, signing.certificatePath != nil || signing.signedAttributes || signing.keyID {
            throw ValidationError("--certificate, --signed-attributes and --key-id need --sign-key")
        }
        if signKey != nil, device == nil { throw ValidationError("a signed sample names its device: give --device") }
        if signKey != nil, metadata.contains(where: { $0.key == SampleMetadataKey.digitalSignature }) {
            throw ValidationError("give either --sign-key or a \(SampleMetadataKey.digitalSignature) metadata entry, not both")
        }
        if let uuid, UUID(uuidString: uuid) == nil { throw ValidationError("--uuid is not a UUID") }
        if Set(metadata.map(\.key)).count != metadata.count { throw ValidationError("a --metadata key is repeated") }
    }

    func run() async throws {
        var sample: QuantitySample
        do {
            sample = try QuantitySample(
                uuid: uuid.flatMap(UUID.init(uuidString:)) ?? UUID(), type: type, value: value, unit: unit, startDate: start.instant,
                endDate: end?.instant, source: RecordSource(identifier: source), device: device.map { SampleDevice(identifier: $0) },
                metadata: Dictionary(uniqueKeysWithValues: metadata.map { ($0.key, $0.value) }))
        } catch {
            throw CommandFailure.usage(error.description)
        }
        if let signKey {
            let signer = try signing.signer(key: try KeyFiles.signingKey(signKey))
            do { sample = try sample.signed(by: signer, options: signing.options()) } catch {
                throw CommandFailure.usage("cannot sign the sample: \(error)")
            }
        }
        let store = try await storeOptions.open()
        let outcome = try await store.saveSamples([sample])
        if case .malformed(let reason) = outcome.saved.first?.signatureStatus {
            FileHandle.standardError.write(Data("warning: the signature is malformed (\(reason)); the sample is stored and marked\n".utf8))
        }
        if json {
            if let stored = outcome.saved.first {
                JSONOutput.print(SampleJSON.sample(stored))
            } else {
                let existing = try await store.samples(QuantitySampleQuery(type: nil, predicate: .uuids([sample.uuid])))
                JSONOutput.print(existing.first.map { SampleJSON.sample($0) } ?? .null)
            }
            return
        }
        guard let stored = outcome.saved.first else {
            print("already stored: \(sample.uuid.uuidString)")
            return
        }
        print("saved \(sample.type.name) \(sample.value) \(sample.unit) at \(JSONOutput.iso8601(sample.startDate))")
        print("  uuid:      \(sample.uuid.uuidString)")
        print("  anchor:    \(stored.anchor)")
        print("  signature: \(stored.signatureStatus)")
    }
}
