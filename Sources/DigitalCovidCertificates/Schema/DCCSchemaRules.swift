/// What differs between the DCC schema releases the harness applies (eu-dcc-schema,
/// `DGC.combined-schema.json` 1.0.0 … 1.2.0, `DCC.combined-schema.json` 1.2.1 and 1.3.0).
/// No release sets `additionalProperties`, `enum` or `const`, and `format` is never asserted.
struct DCCSchemaRules: Sendable, Equatable {
    /// How `dob` is matched.
    enum DateOfBirthPattern: Sendable, Equatable {
        /// 1.0.0, 1.0.1: `(19|20)\d{2}-\d{2}-\d{2}`, unanchored — any text containing a full
        /// date passes.
        case containsFullDate
        /// 1.1.0 … 1.2.1: `^(19|20)\d\d(-\d\d){0,2}$` — year, year-month or full date.
        case partialDate
        /// 1.3.0: the same, or empty.
        case partialDateOrEmpty
    }

    /// The release applied.
    let release: String
    /// 1.3.0 puts the `required` keys in a `oneOf` of `ver`, `nam`, `dob` plus exactly one of
    /// `v`, `t`, `r`; earlier releases require `ver`, `nam`, `dob` only.
    let oneOfGroups: Bool
    /// 1.3.0: at most one entry in `v`, `t` or `r`.
    let groupMaxItems: Int?
    /// Up to 1.2.1 `dn` and `sd` are 1…9; 1.3.0 drops the maximum.
    let doseMaximum: Double?
    /// `fn`, `fnt`, `gn`, `gnt`, `is`, `ci`, `tc`: 50 code points up to 1.2.1, 80 in 1.3.0.
    let textMaxLength: Int
    /// `nm`: unbounded up to 1.2.1, 80 in 1.3.0.
    let testNameMaxLength: Int?
    let dateOfBirth: DateOfBirthPattern
    /// `tc` is required up to 1.2.1.
    let testCentreRequired: Bool
    /// `dr` (date-time of the test result) is a declared string up to 1.1.0; later releases
    /// drop it, and without `additionalProperties` any value then passes.
    let testResultDateDeclared: Bool

    static let v1_0 = DCCSchemaRules(
        release: "1.0.0", oneOfGroups: false, groupMaxItems: nil, doseMaximum: 9, textMaxLength: 50,
        testNameMaxLength: nil, dateOfBirth: .containsFullDate, testCentreRequired: true, testResultDateDeclared: true)
    static let v1_1 = DCCSchemaRules(
        release: "1.1.0", oneOfGroups: false, groupMaxItems: nil, doseMaximum: 9, textMaxLength: 50,
        testNameMaxLength: nil, dateOfBirth: .partialDate, testCentreRequired: true, testResultDateDeclared: true)
    static let v1_2 = DCCSchemaRules(
        release: "1.2.0", oneOfGroups: false, groupMaxItems: nil, doseMaximum: 9, textMaxLength: 50,
        testNameMaxLength: nil, dateOfBirth: .partialDate, testCentreRequired: true, testResultDateDeclared: false)
    static let v1_3 = DCCSchemaRules(
        release: "1.3.0", oneOfGroups: true, groupMaxItems: 1, doseMaximum: nil, textMaxLength: 80,
        testNameMaxLength: 80, dateOfBirth: .partialDateOrEmpty, testCentreRequired: false, testResultDateDeclared: false)

    /// The rules the harness picks for a payload's `ver`: the exact release names it knows, and
    /// 1.3.0 for anything else — also for 1.3.1 … 1.3.3, though 1.3.2 relaxed the name to
    /// "`fnt` or `gnt`": the harness (and so this validator) still requires `fnt`.
    /// 1.0.1 differs from 1.0.0 only by naming `tt`'s value set, 1.2.1 from 1.2.0 only in
    /// descriptions.
    static func forVersion(_ ver: String?) -> DCCSchemaRules {
        switch ver {
        case "1.0.0", "1.0.1": return .v1_0
        case "1.1.0": return .v1_1
        case "1.2.0", "1.2.1": return .v1_2
        default: return .v1_3
        }
    }
}
