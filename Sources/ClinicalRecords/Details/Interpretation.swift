import FHIR

/// An observation's interpretation (HL7 v3 ObservationInterpretation), as a flag people read.
public enum Interpretation: Sendable, Hashable {
    /// `H`, `HH`/`HU` (critical), above the range.
    case high(critical: Bool)
    /// `L`, `LL`/`LU` (critical), below the range.
    case low(critical: Bool)
    /// `N`: within the range.
    case normal
    /// `A`, `AA`: abnormal, no direction.
    case abnormal(critical: Bool)
    /// Anything else, by its text or code (`POS`, `NEG`, `R`…).
    case other(String)

    /// Reads the first coding it knows, else the concept's text or first code.
    public init?(_ concept: CodeableConcept) {
        for coding in concept.coding {
            switch coding.code?.uppercased() {
            case "H", ">", "HU": self = .high(critical: coding.code?.uppercased() == "HU"); return
            case "HH": self = .high(critical: true); return
            case "L", "<", "LU": self = .low(critical: coding.code?.uppercased() == "LU"); return
            case "LL": self = .low(critical: true); return
            case "N": self = .normal; return
            case "A": self = .abnormal(critical: false); return
            case "AA": self = .abnormal(critical: true); return
            default: continue
            }
        }
        guard let text = concept.text ?? concept.coding.first?.display ?? concept.coding.first?.code else { return nil }
        self = .other(text)
    }

    /// The flag as people read it, e.g. `High` or `Critical low`.
    public var text: String {
        switch self {
        case .high(let critical): return critical ? "Critical high" : "High"
        case .low(let critical): return critical ? "Critical low" : "Low"
        case .normal: return "Normal"
        case .abnormal(let critical): return critical ? "Critically abnormal" : "Abnormal"
        case .other(let s): return s
        }
    }

    /// Whether it flags a result outside the range.
    public var isFlagged: Bool {
        switch self {
        case .normal, .other: return false
        default: return true
        }
    }
}
