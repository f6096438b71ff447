import CBOR

/// The eHealth Network's value sets for the coded fields of a DCC. A code they do not list is
/// worth a warning, never an error: the sets grow (new vaccines, new test devices), and the
/// schema itself only asks for text.
public enum DCCValueSets {
    /// The codes in `tg`, `vp`, `mp`, `ma`, `co`, `tt` and `tr` of every entry of `v`, `t` and
    /// `r` that the value sets do not list. Members that are not text are left to
    /// ``DCCSchema/validate(_:)``.
    public static func unknownCodes(_ hcert: CBORValue) -> [DCCSchemaViolation] {
        var unknown: [DCCSchemaViolation] = []
        for (group, fields) in fieldSets {
            guard let entries = hcert[group]?.arrayElements else { continue }
            for (i, entry) in entries.enumerated() {
                for (key, valueSet) in fields {
                    guard let code = entry[key]?.text, !valueSet.codes.contains(code) else { continue }
                    unknown.append(DCCSchemaViolation(
                        path: DCCSchemaPath.member(DCCSchemaPath.element(group, i), key),
                        message: "\"\(code)\" is not in the EU value set \(valueSet.name)"))
                }
            }
        }
        return unknown
    }

    /// A value set's name (its valueSetId) and codes.
    private typealias ValueSet = (name: String, codes: Set<String>)

    /// Which value set each coded member of each entry kind draws from; `ma` means a vaccine's
    /// authorisation holder in `v` but a test device in `t`.
    private static let fieldSets: [(String, [(String, ValueSet)])] = [
        ("v", [
            ("tg", ("disease-agent-targeted", diseasesTargeted)),
            ("vp", ("sct-vaccines-covid-19", vaccineProphylaxis)),
            ("mp", ("vaccines-covid-19-names", vaccineProducts)),
            ("ma", ("vaccines-covid-19-auth-holders", vaccineAuthorisationHolders)),
            ("co", ("country-2-codes", countries)),
        ]),
        ("t", [
            ("tg", ("disease-agent-targeted", diseasesTargeted)),
            ("tt", ("covid-19-lab-test-type", testTypes)),
            ("ma", ("covid-19-lab-test-manufacturer-and-name", testManufacturers)),
            ("tr", ("covid-19-lab-result", testResults)),
            ("co", ("country-2-codes", countries)),
        ]),
        ("r", [
            ("tg", ("disease-agent-targeted", diseasesTargeted)),
            ("co", ("country-2-codes", countries)),
        ]),
    ]
}
