import SmartHealthCards
import VerifiableRecords

/// One card read from card inputs, or why an input held none.
public struct CardReading: Sendable, Equatable {
    /// Whether it is a SMART Health Card (the result holds a compact JWS) or an EU DCC (the
    /// result holds its `HC1:` QR text).
    public let format: VerifiableClinicalRecord.SourceType
    /// The positions, in the order they were handed to the reader, of the inputs it was read
    /// from: one, or several for the chunks of a multi-QR card.
    public let inputs: [Int]
    /// Where it came from: the input's name, `name#k` for the k-th card of a container, the
    /// names of chunk inputs joined by ` + `.
    public let origin: String
    /// Whether it came from QR text (so QR size limits apply).
    public let fromQR: Bool
    /// Findings that do not stop the card being read: deprecated chunking, a QR code's shape.
    public let warnings: [VerificationIssue]
    /// The card's compact JWS (or a DCC's QR text), or why there is none.
    public let result: Result<String, CardInputError>

    /// Makes a reading; a SMART Health Card unless `format` says otherwise.
    public init(
        format: VerifiableClinicalRecord.SourceType = .smartHealthCard, inputs: [Int], origin: String, fromQR: Bool, warnings: [VerificationIssue],
        result: Result<String, CardInputError>
    ) {
        self.format = format
        self.inputs = inputs
        self.origin = origin
        self.fromQR = fromQR
        self.warnings = warnings
        self.result = result
    }

    /// The card as the verifier takes it: a failed reading becomes a card whose report fails
    /// with the error's code, so an input that held nothing is never left out.
    public var card: HealthCardInput.Card {
        switch result {
        case .success(let jws): return HealthCardInput.Card(jws: jws, origin: origin, warnings: warnings, fromQR: fromQR)
        case .failure(let e): return HealthCardInput.Card(jws: "", origin: origin, warnings: warnings, fromQR: fromQR, inputError: e.issue)
        }
    }

    /// Why there is no card, or `nil` when there is one.
    public var error: CardInputError? {
        if case .failure(let e) = result { return e }
        return nil
    }
}
