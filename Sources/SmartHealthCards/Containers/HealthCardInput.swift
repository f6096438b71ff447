import VerifiableRecords

/// What a verifier is handed: cards as the card-input reader (CardScanning) found them.
public enum HealthCardInput {
    /// One card found in an input, with where it came from.
    ///
    /// An input that held no readable card is still a `Card`, carrying ``inputError``: the
    /// verifier reports it as failed, so nothing verified is never a success.
    public struct Card: Sendable {
        /// The compact JWS as found; empty when ``inputError`` says the input held no readable card.
        public let jws: String
        /// Where it came from, e.g. `file.smart-health-card#0`.
        public let origin: String
        /// Findings about the container (deprecated chunking…).
        public let warnings: [VerificationIssue]
        /// Whether the card came from QR text (so QR size limits apply).
        public let fromQR: Bool
        /// Why the input itself could not be read (bad QR text or container), if it could not.
        public let inputError: VerificationIssue?

        /// Makes a card input; by default it came from a file (not QR), with no warnings and no input error.
        public init(jws: String, origin: String, warnings: [VerificationIssue] = [], fromQR: Bool = false, inputError: VerificationIssue? = nil) {
            self.jws = jws
            self.origin = origin
            self.warnings = warnings
            self.fromQR = fromQR
            self.inputError = inputError
        }
    }
}
