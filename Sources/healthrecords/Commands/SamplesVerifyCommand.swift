import ArgumentParser
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import SampleSignatures

struct SamplesVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every signed sample against the device maker's public key or certificate.",
        discussion: """
            Each signed sample is valid (the signature verifies and the stored values are the signed \
            ones), tampered (the signature verifies but stored values differ; the fields are named) \
            or invalid (the signature does not verify, with the reason). Unsigned samples are \
            counted, not checked. Exit status: 0 when every signed sample is valid, 1 when any is \
            invalid or tampered, 2 for usage and file errors.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filter: SampleFilterOptions

    @Option(name: .customLong("key"), help: "A trusted public key: PEM, DER SubjectPublicKeyInfo or JWK (repeatable).")
    var keys: [String] = []

    @Option(name: .customLong("certificate"), help: "A trusted certificate, PEM or DER (repeatable).")
    var certificates: [String] = []

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let query = try filter.parameters.parse { p throws(ParameterError) in try QuantitySampleQuery(parameters: p) }
        let verifier = CMSVerifier(trusting: try KeyFiles.trustedSigners(keys: keys, certificates: certificates))
        let store = try await storeOptions.open()
        let samples = try await store.samples(query)
        var results: [(StoredQuantitySample, SampleVerificationOutcome)] = []
        var unsigned = 0
        for stored in samples {
            if let outcome = stored.sample.verifySignature(with: verifier) {
                results.append((stored, outcome))
            } else {
                unsigned += 1
            }
        }
        var counts = ["valid": 0, "invalid": 0, "tampered": 0]
        for (_, outcome) in results { counts[SampleVerdict.parts(outcome).0, default: 0] += 1 }
        if json {
            JSONOutput.print(.object(JSONObject([
                "results": .array(results.map(JSONOutput.verification)),
                "valid": JSONOutput.int(counts["valid"] ?? 0),
                "invalid": JSONOutput.int(counts["invalid"] ?? 0),
                "tampered": JSONOutput.int(counts["tampered"] ?? 0),
                "unsigned": JSONOutput.int(unsigned),
            ])))
        } else {
            var table = TextTable("uuid", "type", "value", "unit", "start", "result", "reason")
            for (stored, outcome) in results {
                let s = stored.sample
                let (result, reason, _) = SampleVerdict.parts(outcome)
                table.add(s.uuid.uuidString, s.type.name, s.value, s.unit, JSONOutput.iso8601(s.startDate), result, reason ?? "")
            }
            print(table.rendered)
            print("\(counts["valid"] ?? 0) valid, \(counts["tampered"] ?? 0) tampered, \(counts["invalid"] ?? 0) invalid, \(unsigned) unsigned")
        }
        if (counts["invalid"] ?? 0) + (counts["tampered"] ?? 0) > 0 { throw ExitCode(1) }
    }
}
