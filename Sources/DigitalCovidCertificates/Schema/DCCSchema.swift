import CBOR

/// The EU DCC JSON schema, encoded in Swift, with exactly the verdicts the member states' test
/// harness (dgc-testdata `test_cose_schema`) reaches with Python `jsonschema`: the release its
/// `ver` names (1.0.0, 1.0.1, 1.1.0, 1.2.0, 1.2.1, 1.3.0; 1.3.0 for any other), `format` not
/// asserted, patterns searched as Python's `re` does, and afterwards exactly one of `v`, `t`,
/// `r` required.
public enum DCCSchema {
    /// Validates the hcert payload (the value under CWT claim -260 / key 1) against the DCC JSON
    /// schema of the version its "ver" names.
    ///
    /// Returns nothing for a valid payload. Date-time tags (0, 1) count as text in the UTC form
    /// the harness gives them; tags the harness's decoder refuses make the payload invalid.
    public static func validate(_ hcert: CBORValue) -> [DCCSchemaViolation] {
        let undecodable = DCCSchemaDecodability.problems(hcert)
        // The harness fails while decoding; no schema is applied.
        guard undecodable.isEmpty else { return undecodable }
        var validator = DCCSchemaValidator(rules: rules(for: hcert))
        validator.validatePayload(hcert)
        return validator.violations
    }

    /// The rules for a payload: by its `ver` text, as the harness picks the schema.
    static func rules(for hcert: CBORValue) -> DCCSchemaRules {
        guard case .object(let entries) = SchemaInstance.of(hcert, inMap: true),
              let ver = SchemaInstance.member(entries, "ver"),
              case .string(let text) = SchemaInstance.of(ver, inMap: true) else { return .v1_3 }
        return DCCSchemaRules.forVersion(text)
    }
}
