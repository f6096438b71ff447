import ArgumentParser
import CardScanning
import FHIR
import Foundation
import SmartHealthCards

struct IssueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue a SMART Health Card from a FHIR Bundle.",
        discussion: """
            The bundle is minimized (resource:N references; no ids, meta, narrative, \
            CodeableConcept.text or Coding.display), wrapped in a payload (iss, nbf, optional exp, \
            vc.type with #health-card plus --type, fhirVersion 4.0.1, optional rid), raw-DEFLATEd and \
            signed with ES256. Outputs are written together: all of them or none.
            """)

    @Argument(help: "The FHIR Bundle (JSON).")
    var bundle: String

    @Option(help: ArgumentHelp("A private JWKS or JWK, or a PEM P-256 private key.", valueName: "FILE"))
    var key: String

    @Option(help: "Pick the signing key by kid when the JWKS holds several.")
    var kid: String?

    @Option(help: ArgumentHelp("The issuer URL (https, no trailing /).", valueName: "URL"))
    var iss: String

    @Option(name: .customLong("type"), help: ArgumentHelp("An extra vc.type URI; repeatable.", valueName: "URI"))
    var types: [String] = []

    @Option(help: ArgumentHelp("When the card expires (FHIR date, ISO 8601 or epoch seconds).", valueName: "DATE"))
    var exp: DateArgument?

    @Option(name: .customLong("rid-secret"), help: ArgumentHelp("A revocation secret file ({\"secret\": …} or the secret text): adds vc.rid.", valueName: "FILE"))
    var ridSecret: String?

    @Option(name: .customLong("rid-user"), help: "The user id the rid is computed from (default: the bundle's Patient id).")
    var ridUser: String?

    @Flag(help: "Keep meta.security labels (the spec allows them; its generator drops them).")
    var keepSecurityLabels = false

    @Option(help: ArgumentHelp("Write the .smart-health-card file here.", valueName: "FILE"))
    var out: String?

    @Option(help: ArgumentHelp("Write the compact JWS here.", valueName: "FILE"))
    var jws: String?

    @Option(name: .customLong("qr-text"), help: ArgumentHelp("Write the shc:/ numeric QR text here.", valueName: "FILE"))
    var qrText: String?

    @Option(name: .customLong("qr-png"), help: ArgumentHelp("Write the QR code as PNG here.", valueName: "FILE"))
    var qrPNG: String?

    @Option(name: .customLong("qr-svg"), help: ArgumentHelp("Write the QR code as SVG here.", valueName: "FILE"))
    var qrSVG: String?

    @Option(name: .customLong("module-size"), help: "Pixels per QR module in PNG/SVG output (1–100).")
    var moduleSize: Int = 4

    func validate() throws {
        if !(1...100).contains(moduleSize) { throw ValidationError("--module-size must be between 1 and 100") }
        if ridUser != nil, ridSecret == nil { throw ValidationError("--rid-user needs --rid-secret") }
    }

    func run() async throws {
        let bundleData = try KeyFiles.read(bundle, "bundle")
        let value: JSONValue
        do { value = try JSONReader().read(bundleData) } catch { throw CommandFailure.usage("\(bundle): \(error)") }
        guard let object = value.objectValue, object.string("resourceType") == "Bundle" else {
            throw CommandFailure.usage("\(bundle): not a FHIR Bundle (resourceType must be Bundle)")
        }
        let signingKey: IssuerKey
        do { signingKey = try IssuerKey.load(try KeyFiles.read(key, "key"), kid: kid) } catch { throw CommandFailure.usage("\(key): \(error)") }
        let issuer: HealthCardIssuer
        do { issuer = try HealthCardIssuer(issuer: iss, key: signingKey, minimizer: BundleMinimizer(keepSecurityLabels: keepSecurityLabels)) } catch {
            throw CommandFailure.usage(error.description)
        }
        var rid: String? = nil
        if let ridSecret {
            let secret = try Self.secret(try KeyFiles.read(ridSecret, "revocation secret"))
            guard let user = ridUser ?? Self.patientID(object) else {
                throw CommandFailure.usage("no --rid-user given and the bundle's Patient has no id")
            }
            rid = RevocationID.compute(secret: secret, keyID: signingKey.keyID, userID: user)
        }
        let card: IssuedCard
        do { card = try issuer.issue(bundle: object, types: types, notBefore: Date(), expiration: exp?.instant, revocationID: rid) } catch {
            throw CommandFailure.usage(error.description)
        }
        for w in card.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
        var files = OutputFiles()
        do {
            if let out { try files.add(card.fileContents, to: out) }
            if let jws { try files.add(Data(card.jws.utf8), to: jws) }
            if qrText != nil || qrPNG != nil || qrSVG != nil {
                let text: String
                do { text = try card.qrText() } catch { throw CommandFailure.usage(error.description) }
                if let qrText { try files.add(Data(text.utf8), to: qrText) }
                if qrPNG != nil || qrSVG != nil {
                    do {
                        let code = try CardQRCode.encode(text)
                        if let qrPNG { try files.add(try code.pngData(moduleSize: moduleSize), to: qrPNG) }
                        if let qrSVG { try files.add(Data(try code.svgString(moduleSize: moduleSize).utf8), to: qrSVG) }
                    } catch let e as CommandFailure { throw e } catch { throw CommandFailure.usage("QR code: \(error)") }
                }
            }
            try files.commit()
        } catch {
            files.discard()
            throw error
        }
        if out == nil && jws == nil && qrText == nil && qrPNG == nil && qrSVG == nil { print(card.jws) }
        FileHandle.standardError.write(Data("issued: kid \(signingKey.keyID), \(card.jws.utf8.count) JWS characters\(rid.map { ", rid \($0)" } ?? "")\n".utf8))
    }

    /// The secret text: the `secret` member of a JSON file, or the file's trimmed text.
    static func secret(_ data: Data) throws -> String {
        if let o = try? JSONReader().read(data).objectValue, let s = o.string("secret") { return s }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CommandFailure.usage("the revocation secret file is empty") }
        return text
    }

    static func patientID(_ bundle: JSONObject) -> String? {
        bundle.list("entry").lazy.compactMap { $0.objectValue?.object("resource") }.first { $0.string("resourceType") == "Patient" }?.string("id")
    }
}
