import Crypto
import Foundation
import SampleSignatures

/// Throughput of CMS SignedData verification against swift-crypto's raw P-256 verify of the
/// same message (the 178-byte DER content of a signed blood-glucose sample), and of signing.
enum CMSBenchmark {
    /// One measured operation; `body` must return `true` every time.
    struct Measurement {
        var name: String
        var body: () -> Bool
        var best = 0.0
    }

    struct OperationFailed: Error, CustomStringConvertible {
        var name: String
        var description: String { "benchmark operation failed: \(name)" }
    }

    /// Measures every operation (or only the one named `only`) and prints a Markdown table.
    static func run(secondsPerRound: Double = 1, rounds: Int = 5, only: String? = nil) throws {
        let key = DeviceSigningKey()
        let start = Date(timeIntervalSince1970: 1_773_477_000.25)
        let sample = SampleValues(
            sampleType: .bloodGlucose, value: "5.40", unit: "mmol/L", startDate: start, endDate: start, deviceIdentifier: "GMC-0042-7781",
            extras: ["HKMetadataKeyBloodGlucoseMealTime": "1", "HKWasUserEntered": "0"])
        let content = try SignedSampleContent(sample).derRepresentation
        let signer = try CMSSigner(key: key)
        let withAttributes = try signer.sign(content, options: .init(includesSignedAttributes: true, signingTime: start))
        let withoutAttributes = try signer.sign(content, options: .init(includesSignedAttributes: false))
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        let byIssuer = try CMSSigner(key: key, certificate: certificate).sign(content, options: .init(signingTime: start))
        let verifier = CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey))
        let certificateVerifier = CMSVerifier(trusting: TrustedSigner(certificate: certificate))
        let trusted = TrustedSigner(publicKey: key.publicKey)
        let base64 = withAttributes.base64EncodedString
        let publicKey = key.key.publicKey
        let rawSignature = try key.key.signature(for: content)

        var measurements = [
            Measurement(name: "raw P-256 verify (swift-crypto), same content") { publicKey.isValidSignature(rawSignature, for: content) },
            Measurement(name: "CMS verify, no signed attributes") { (try? verifier.verify(withoutAttributes)) != nil },
            Measurement(name: "CMS verify, signed attributes") { (try? verifier.verify(withAttributes)) != nil },
            Measurement(name: "CMS verify, issuer+serial, embedded certificate") { (try? certificateVerifier.verify(byIssuer)) != nil },
            Measurement(name: "sample verify (base64, CMS, compare values)") {
                SignedSample.verify(sample, signature: base64, trusting: trusted) == .valid
            },
            Measurement(name: "CMS sign, no signed attributes") {
                (try? signer.sign(content, options: .init(includesSignedAttributes: false))) != nil
            },
            Measurement(name: "CMS sign, signed attributes") {
                (try? signer.sign(content, options: .init(includesSignedAttributes: true, signingTime: start))) != nil
            },
        ]
        if let only {
            measurements.removeAll { $0.name != only && !$0.name.hasPrefix("raw") }
        }
        for _ in 0..<rounds {
            for index in measurements.indices {
                let rate = try rate(seconds: secondsPerRound, measurements[index])
                measurements[index].best = max(measurements[index].best, rate)
            }
        }
        print("## CMS SignedData (P-256, SHA-256) on a \(content.count)-byte sample content\n")
        print("Messages: \(withoutAttributes.derRepresentation.count) B without signed attributes, \(withAttributes.derRepresentation.count) B with, "
            + "\(byIssuer.derRepresentation.count) B with an embedded certificate. Best of \(rounds) interleaved rounds of \(fmt(secondsPerRound)) s.\n")
        print("| operation | per second | µs each | ratio to raw verify |")
        print("|---|---|---|---|")
        let raw = measurements[0].best
        for m in measurements {
            let ratio = m.name.hasPrefix("CMS verify") || m.name.hasPrefix("sample") ? fmt(m.best / raw, 3) : ""
            print("| \(m.name) | \(fmt(m.best, 0)) | \(fmt(1e6 / m.best, 2)) | \(ratio) |")
        }
        let plain = measurements.filter { $0.name.hasPrefix("CMS verify") && !$0.name.contains("certificate") }
        if let worst = plain.map(\.best).min() {
            print("\nCMS verify (SKI, with and without signed attributes) / raw verify: \(fmt(worst / raw, 3)) (target ≥ 0.90)\n")
        }
    }

    /// Operations per second of `m.body` over `seconds`, in batches of 32.
    static func rate(seconds: Double, _ m: Measurement) throws -> Double {
        let begin = Measure.now()
        let deadline = begin + UInt64(seconds * 1e9)
        var operations = 0
        var now = begin
        while now < deadline {
            for _ in 0..<32 where !m.body() { throw OperationFailed(name: m.name) }
            operations += 32
            now = Measure.now()
        }
        return Double(operations) / (Double(now - begin) / 1e9)
    }
}
