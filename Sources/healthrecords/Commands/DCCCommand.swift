import ArgumentParser
import CBOR
import DigitalCovidCertificates
import FHIR
import Foundation
import QRCode

/// `healthrecords dcc`: EU Digital COVID Certificates beside cards (verification is `verify`'s).
struct DCCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dcc",
        abstract: "EU Digital COVID Certificates: issue test certificates (verify and import take them like cards).",
        subcommands: [DCCIssueCommand.self])
}

/// `healthrecords dcc issue`: signs a DCC payload with a Document Signer key, so round trips,
/// interop tests and fuzzing need no outside signer.
struct DCCIssueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Sign a DCC payload (the hcert JSON) as HC1: text and a QR code.",
        discussion: """
            PAYLOAD.json is what goes under CWT claim -260 / 1 (ver, nam, dob, and one of v, t, r); \
            it must pass the DCC schema of its version. KEY is the DSC's private key in PEM: EC P-256 \
            signs ES256, RSA signs PS256. The COSE_Sign1 is tagged 18 with alg and kid (the first 8 \
            bytes of the SHA-256 of the certificate's DER) in the protected header; claims are iss \
            (default: the certificate's country), iat and exp. Writes the HC1: text to --out or \
            standard output, and the QR code (alphanumeric mode, level Q) to --qr.
            """)

    @Argument(help: ArgumentHelp("The DCC payload as JSON.", valueName: "PAYLOAD.json"))
    var payload: String

    @Option(help: ArgumentHelp("The DSC's private key (PEM).", valueName: "KEY.pem"))
    var key: String

    @Option(help: ArgumentHelp("The DSC (PEM, DER or base64 DER).", valueName: "DSC"))
    var certificate: String

    @Option(help: ArgumentHelp("The issuing country for the iss claim (default: the certificate's C).", valueName: "CC"))
    var issuer: String?

    @Option(name: .customLong("issued-at"), help: ArgumentHelp("The iat claim (ISO 8601, FHIR date or epoch seconds; default now).", valueName: "DATE"))
    var issuedAt: DateArgument?

    @Option(help: ArgumentHelp("The exp claim (default: a year after iat).", valueName: "DATE"))
    var expires: DateArgument?

    @Option(help: ArgumentHelp("Write the HC1: text here instead of standard output.", valueName: "FILE"))
    var out: String?

    @Option(help: ArgumentHelp("Write the QR code as PNG here.", valueName: "FILE.png"))
    var qr: String?

    @Option(name: .customLong("module-size"), help: "Pixels per QR module in the PNG (1–100).")
    var moduleSize: Int = 4

    @Flag(help: "Issue even when the payload breaks the DCC schema (for negative test data).")
    var allowInvalidPayload = false

    func validate() throws {
        if !(1...100).contains(moduleSize) { throw ValidationError("--module-size must be between 1 and 100") }
    }

    func run() async throws {
        let value: JSONValue
        do { value = try JSONReader().read(try KeyFiles.read(payload, "payload")) } catch let e as CommandFailure { throw e } catch {
            throw CommandFailure.usage("\(payload): \(error)")
        }
        guard value.objectValue != nil else { throw CommandFailure.usage("\(payload): the payload must be a JSON object") }
        let hcert = CBORValue(json: value)
        let violations = DCCSchema.validate(hcert)
        if !violations.isEmpty && !allowInvalidPayload {
            throw CommandFailure.usage("\(payload) breaks the DCC schema: " + violations.map(\.description).joined(separator: "; "))
        }
        let signingKey: DCCIssuer.SigningKey
        do { signingKey = try DCCIssuer.SigningKey(pem: String(decoding: try KeyFiles.read(key, "key"), as: UTF8.self)) } catch let e as CommandFailure {
            throw e
        } catch {
            throw CommandFailure.usage("\(key): \(error)")
        }
        let dsc: DocumentSignerCertificate
        do {
            guard let first = try DSCTrustList.certificates(in: try KeyFiles.read(certificate, "certificate")).first else {
                throw CommandFailure.usage("\(certificate): no certificate")
            }
            dsc = first
        } catch let e as CommandFailure { throw e } catch {
            throw CommandFailure.usage("\(certificate): \(error)")
        }
        let iat = issuedAt?.instant ?? Date()
        let exp = expires?.instant ?? iat.addingTimeInterval(365 * 86_400)
        let text: String
        do {
            let issuerKey = try DCCIssuer(key: signingKey, certificate: dsc)
            text = try issuerKey.issue(payload: hcert, issuer: issuer ?? dsc.country, issuedAt: iat, expiration: exp)
        } catch {
            throw CommandFailure.usage(error.description)
        }
        var files = OutputFiles()
        do {
            if let out { try files.add(Data((text + "\n").utf8), to: out) }
            if let qr {
                do {
                    let code = try QREncoder.encode(segments: [try QRSegment.alphanumeric(text)], level: .Q)
                    try files.add(try code.pngData(moduleSize: moduleSize), to: qr)
                } catch let e as CommandFailure { throw e } catch { throw CommandFailure.usage("QR code: \(error)") }
            }
            try files.commit()
        } catch {
            files.discard()
            throw error
        }
        if out == nil { print(text) }
        let kid = Data(dsc.keyIdentifier).base64EncodedString()
        FileHandle.standardError.write(Data("issued: \(signingKey.algorithmName), kid \(kid), \(text.utf8.count) characters\n".utf8))
    }
}
