import ByteEncodings
import FHIR
import Foundation

/// Takes the JWS texts out of what people hand a verifier: a `.smart-health-card` file, a FHIR
/// `$health-cards-issue` `Parameters` response, `shc:/` QR text, or bare JWS text.
public enum HealthCardInput {
    /// One card found in an input, with where it came from.
    public struct Card: Sendable {
        /// The JWS text.
        public let jws: String
        /// Where it came from, e.g. `file.smart-health-card#0`.
        public let origin: String
        /// Findings about the container (deprecated chunking…).
        public let warnings: [VerificationIssue]
        /// Whether the card came from QR text (so QR size limits apply).
        public let fromQR: Bool
        /// Why the input itself could not be read (bad QR text or container), if it could not.
        public let inputError: VerificationIssue?

        /// Makes a card input.
        public init(jws: String, origin: String, warnings: [VerificationIssue] = [], fromQR: Bool = false, inputError: VerificationIssue? = nil) {
            self.jws = jws
            self.origin = origin
            self.warnings = warnings
            self.fromQR = fromQR
            self.inputError = inputError
        }
    }

    /// What kind of text an input is.
    public enum Kind: Sendable, Hashable {
        /// A JSON container: a `.smart-health-card` file or a `Parameters` response.
        case json
        /// Text naming the `shc:` scheme, in any case (a bad header is reported as a QR error).
        case qrText
        /// Text shaped like a compact JWS (it may still be malformed).
        case jws
        /// Nothing a card could be read from.
        case nothing(NoCardReason)
    }

    /// Sorts an input by its first bytes, after any whitespace or byte-order mark.
    ///
    /// Only text shaped like a JWS (base64url characters up to a `.`, or the `eyJ` every JSON
    /// header starts with) is read as one, so a stray note or an empty file is reported as
    /// holding no card rather than as a broken signature.
    public static func kind(of data: Data) -> Kind {
        guard let start = data.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }) else {
            return .nothing(.empty)
        }
        let text = data[start...]
        if text.first == UInt8(ascii: "{") { return .json }
        if HealthCardQRText.namesScheme(text) { return .qrText }
        if text.starts(with: "eyJ".utf8) { return .jws }
        if let end = text.firstIndex(where: { !Base64URL.isAlphabetByte($0) }), end > text.startIndex, text[end] == UInt8(ascii: ".") { return .jws }
        return .nothing(.notCardText)
    }

    /// The cards in a JSON container: `{"verifiableCredential":[…]}` or a `Parameters` resource.
    ///
    /// A container with no card throws `input.noCard`: an empty list verifies nothing, and must
    /// never read as a success.
    public static func cards(json data: Data, origin: String) throws(VerificationIssueError) -> [Card] {
        let value: JSONValue
        do { value = try JSONReader().read(data) } catch { throw VerificationIssueError(.jwsMalformed, "\(origin): not JSON: \(error)") }
        guard let o = value.objectValue else { throw VerificationIssueError(.jwsMalformed, "\(origin): not a JSON object") }
        var texts: [String] = []
        if let list = o["verifiableCredential"] {
            guard let a = list.arrayValue else { throw VerificationIssueError(.jwsMalformed, "\(origin): verifiableCredential is not an array") }
            for (k, v) in a.enumerated() {
                guard let s = v.stringValue else { throw VerificationIssueError(.jwsMalformed, "\(origin): verifiableCredential[\(k)] is not a string") }
                texts.append(s)
            }
        } else if o.string("resourceType") == "Parameters" {
            for p in o.list("parameter") where p["name"]?.stringValue == "verifiableCredential" {
                guard let s = p["valueString"]?.stringValue else { throw VerificationIssueError(.jwsMalformed, "\(origin): a verifiableCredential parameter has no valueString") }
                texts.append(s)
            }
        } else {
            throw VerificationIssueError(.jwsMalformed, "\(origin): neither a .smart-health-card file (verifiableCredential) nor a Parameters resource")
        }
        if texts.isEmpty { throw VerificationIssueError(.inputNoCard, "\(origin): \(NoCardReason.noCredentials)") }
        return texts.enumerated().map { Card(jws: $0.element, origin: "\(origin)#\($0.offset)", warnings: [], fromQR: false) }
    }

    /// The card in one or more `shc:/` texts (several texts are the chunks of one card).
    public static func card(qrTexts: [String], origin: String) throws(VerificationIssueError) -> Card {
        let (jws, warnings) = try HealthCardQRText.assemble(qrTexts)
        return Card(jws: jws, origin: origin, warnings: warnings, fromQR: true)
    }
}
