import CBOR

/// Applies one release's rules to a payload, collecting a violation for each error Python
/// `jsonschema` reports there (a missing required key is reported at the key's own path).
struct DCCSchemaValidator {
    let rules: DCCSchemaRules
    private(set) var violations: [DCCSchemaViolation] = []

    init(rules: DCCSchemaRules) {
        self.rules = rules
    }

    private static let groups = ["v", "t", "r"]

    mutating func validatePayload(_ hcert: CBORValue) {
        guard case .object(let entries) = SchemaInstance.of(hcert, inMap: true) else {
            report("", "the payload must be a map")
            return
        }
        let has = { (key: String) in SchemaInstance.member(entries, key) != nil }
        let groupCount = Self.groups.filter(has).count
        var reportedGroups = false
        if rules.oneOfGroups {
            if !(has("ver") && has("nam") && has("dob") && groupCount == 1) {
                report("", "the payload must hold ver, nam, dob and exactly one of v, t, r")
                reportedGroups = true
            }
        } else {
            required(["ver", "nam", "dob"], in: entries, at: "")
        }
        // The harness's own rule after the schema, for every release.
        if groupCount != 1, !reportedGroups {
            report("", "the payload must hold exactly one of v, t, r")
        }

        if let ver = text(entries, "ver", at: "") {
            pattern(ver, "ver", DCCSchemaPatterns.matchesVersion(ver), #"^\d+.\d+.\d+$"#)
        }
        if let nam = SchemaInstance.member(entries, "nam") { personName(nam) }
        if let dob = text(entries, "dob", at: "") { dateOfBirth(dob) }
        group(entries, "v", entry: Self.vaccinationEntry)
        group(entries, "t", entry: Self.testEntry)
        group(entries, "r", entry: Self.recoveryEntry)
    }

    // MARK: Members

    private mutating func personName(_ value: CBORValue) {
        guard case .object(let entries) = SchemaInstance.of(value, inMap: true) else {
            report("nam", "must be a map")
            return
        }
        required(["fnt"], in: entries, at: "nam")
        for key in ["fn", "gn"] {
            if let name = text(entries, key, at: "nam") { maxLength(name, "nam.\(key)", rules.textMaxLength) }
        }
        for key in ["fnt", "gnt"] {
            guard let name = text(entries, key, at: "nam") else { continue }
            pattern(name, "nam.\(key)", DCCSchemaPatterns.matchesTransliteratedName(name), "^[A-Z<]*$")
            maxLength(name, "nam.\(key)", rules.textMaxLength)
        }
    }

    private mutating func dateOfBirth(_ dob: String) {
        switch rules.dateOfBirth {
        case .containsFullDate:
            pattern(dob, "dob", DCCSchemaPatterns.containsFullDate(dob), #"(19|20)\d{2}-\d{2}-\d{2}"#)
        case .partialDate:
            pattern(dob, "dob", DCCSchemaPatterns.matchesPartialDate(dob, allowEmpty: false), #"^(19|20)\d\d(-\d\d){0,2}$"#)
        case .partialDateOrEmpty:
            pattern(dob, "dob", DCCSchemaPatterns.matchesPartialDate(dob, allowEmpty: true), #"^((19|20)\d\d(-\d\d){0,2}){0,1}$"#)
        }
    }

    private mutating func group(
        _ entries: [CBORMapEntry], _ key: String,
        entry: (inout DCCSchemaValidator, [CBORMapEntry], String) -> Void
    ) {
        guard let value = SchemaInstance.member(entries, key) else { return }
        guard case .array(let elements) = SchemaInstance.of(value, inMap: true) else {
            report(key, "must be an array")
            return
        }
        if elements.isEmpty { report(key, "must hold at least 1 entry") }
        if let most = rules.groupMaxItems, elements.count > most { report(key, "must hold at most \(most) entry") }
        for (i, element) in elements.enumerated() {
            let path = DCCSchemaPath.element(key, i)
            guard case .object(let fields) = SchemaInstance.of(element, inMap: false) else {
                report(path, "must be a map")
                continue
            }
            entry(&self, fields, path)
        }
    }

    private static func vaccinationEntry(_ v: inout DCCSchemaValidator, _ fields: [CBORMapEntry], _ path: String) {
        v.required(["tg", "vp", "mp", "ma", "dn", "sd", "dt", "co", "is", "ci"], in: fields, at: path)
        for key in ["tg", "vp", "mp", "ma", "dt"] { _ = v.text(fields, key, at: path) }
        v.dose(fields, "dn", at: path)
        v.dose(fields, "sd", at: path)
        v.commonTail(fields, at: path)
    }

    private static func testEntry(_ v: inout DCCSchemaValidator, _ fields: [CBORMapEntry], _ path: String) {
        var keys = ["tg", "tt", "sc", "tr", "co", "is", "ci"]
        if v.rules.testCentreRequired { keys.insert("tc", at: 4) }
        v.required(keys, in: fields, at: path)
        var plain = ["tg", "tt", "ma", "sc", "tr"]
        if v.rules.testResultDateDeclared { plain.append("dr") }
        for key in plain { _ = v.text(fields, key, at: path) }
        if let nm = v.text(fields, "nm", at: path), let most = v.rules.testNameMaxLength {
            v.maxLength(nm, DCCSchemaPath.member(path, "nm"), most)
        }
        if let tc = v.text(fields, "tc", at: path) {
            v.maxLength(tc, DCCSchemaPath.member(path, "tc"), v.rules.textMaxLength)
        }
        v.commonTail(fields, at: path)
    }

    private static func recoveryEntry(_ v: inout DCCSchemaValidator, _ fields: [CBORMapEntry], _ path: String) {
        v.required(["tg", "fr", "co", "is", "df", "du", "ci"], in: fields, at: path)
        for key in ["tg", "fr", "df", "du"] { _ = v.text(fields, key, at: path) }
        v.commonTail(fields, at: path)
    }

    /// `co`, `is` and `ci`, alike in every entry.
    private mutating func commonTail(_ fields: [CBORMapEntry], at path: String) {
        if let co = text(fields, "co", at: path) {
            pattern(co, DCCSchemaPath.member(path, "co"), DCCSchemaPatterns.containsCapitalLetter(co), "[A-Z]{1,10}")
        }
        for key in ["is", "ci"] {
            if let value = text(fields, key, at: path) {
                maxLength(value, DCCSchemaPath.member(path, key), rules.textMaxLength)
            }
        }
    }

    // MARK: Keywords

    private mutating func required(_ keys: [String], in entries: [CBORMapEntry], at path: String) {
        for key in keys where SchemaInstance.member(entries, key) == nil {
            report(DCCSchemaPath.member(path, key), "is required")
        }
    }

    /// `type: string` for a member that is present: its text, else a violation.
    private mutating func text(_ entries: [CBORMapEntry], _ key: String, at path: String) -> String? {
        guard let value = SchemaInstance.member(entries, key) else { return nil }
        if case .string(let text) = SchemaInstance.of(value, inMap: true) { return text }
        report(DCCSchemaPath.member(path, key), "must be a text string")
        return nil
    }

    /// `dose_posint`: an integer, at least 1 (and at most 9 before 1.3.0). Like `jsonschema`,
    /// the bounds apply to any number, integral or not.
    private mutating func dose(_ fields: [CBORMapEntry], _ key: String, at path: String) {
        guard let value = SchemaInstance.member(fields, key) else { return }
        let location = DCCSchemaPath.member(path, key)
        guard case .number(let number, let isInteger) = SchemaInstance.of(value, inMap: true) else {
            report(location, "must be an integer")
            return
        }
        if !isInteger { report(location, "must be an integer") }
        if number < 1 { report(location, "must be at least 1") }
        if let most = rules.doseMaximum, number > most { report(location, "must be at most \(Int(most))") }
    }

    /// `maxLength`, in Unicode code points as Python's `len` counts them.
    private mutating func maxLength(_ text: String, _ path: String, _ most: Int) {
        if text.unicodeScalars.count > most { report(path, "must be at most \(most) characters long") }
    }

    private mutating func pattern(_ text: String, _ path: String, _ matches: Bool, _ source: String) {
        if !matches { report(path, "does not match \(source)") }
    }

    private mutating func report(_ path: String, _ message: String) {
        violations.append(DCCSchemaViolation(path: path, message: message))
    }
}
