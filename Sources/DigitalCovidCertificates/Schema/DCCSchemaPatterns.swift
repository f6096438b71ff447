/// The schema's `pattern`s, hand-written with Python `re.search` semantics (what `jsonschema`
/// uses): unanchored unless the pattern anchors itself, `\d` any Unicode decimal digit
/// (category Nd), `.` anything but a newline, and `$` matching at the end or before one final
/// newline. Character classes like `[A-Z]` are ASCII only.
enum DCCSchemaPatterns {
    /// `^\d+.\d+.\d+$` (ver).
    static func matchesVersion(_ text: String) -> Bool {
        // A set of states of the pattern D+ X D+ X D+, run over the text: bit n is state n.
        // 0: start, 1: in the first digits, 2: after the first X, 3: in the second digits,
        // 4: after the second X, 5: in the last digits (accepting).
        var states: UInt8 = 1
        for scalar in body(text) {
            let digit = isDigit(scalar)
            let any = scalar != "\n"
            var next: UInt8 = 0
            if states & 0b1 != 0, digit { next |= 0b10 }
            if states & 0b10 != 0 {
                if digit { next |= 0b10 }
                if any { next |= 0b100 }
            }
            if states & 0b100 != 0, digit { next |= 0b1000 }
            if states & 0b1000 != 0 {
                if digit { next |= 0b1000 }
                if any { next |= 0b10000 }
            }
            if states & 0b110000 != 0, digit { next |= 0b100000 }
            states = next
            if states == 0 { return false }
        }
        return states & 0b100000 != 0
    }

    /// `^[A-Z<]*$` (fnt, gnt).
    static func matchesTransliteratedName(_ text: String) -> Bool {
        body(text).allSatisfy { ("A"..."Z").contains($0) || $0 == "<" }
    }

    /// `(19|20)\d{2}-\d{2}-\d{2}` (dob up to 1.0.1): found anywhere in the text.
    static func containsFullDate(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 10 else { return false }
        return (0...(scalars.count - 10)).contains { isDate(scalars[$0..<($0 + 10)]) }
    }

    /// `^(19|20)\d\d(-\d\d){0,2}$` (dob 1.1.0 … 1.2.1), or with `allowEmpty`
    /// `^((19|20)\d\d(-\d\d){0,2}){0,1}$` (dob 1.3.0).
    static func matchesPartialDate(_ text: String, allowEmpty: Bool) -> Bool {
        let scalars = Array(body(text))
        if scalars.isEmpty { return allowEmpty }
        guard [4, 7, 10].contains(scalars.count), isCentury(scalars[0], scalars[1]),
              isDigit(scalars[2]), isDigit(scalars[3]) else { return false }
        return stride(from: 4, to: scalars.count, by: 3).allSatisfy {
            scalars[$0] == "-" && isDigit(scalars[$0 + 1]) && isDigit(scalars[$0 + 2])
        }
    }

    /// `[A-Z]{1,10}` (co): one ASCII capital anywhere is enough.
    static func containsCapitalLetter(_ text: String) -> Bool {
        text.unicodeScalars.contains { ("A"..."Z").contains($0) }
    }

    // MARK: Pieces

    /// The text a fully anchored pattern has to match: without one final newline, since `$`
    /// matches before it and none of these patterns can match a newline itself.
    private static func body(_ text: String) -> Substring.UnicodeScalarView {
        let scalars = Substring(text).unicodeScalars
        return scalars.last == "\n" ? scalars.dropLast() : scalars[...]
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .decimalNumber
    }

    private static func isCentury(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        (a == "1" && b == "9") || (a == "2" && b == "0")
    }

    /// `(19|20)\d{2}-\d{2}-\d{2}` on exactly ten scalars.
    private static func isDate(_ s: ArraySlice<Unicode.Scalar>) -> Bool {
        let i = s.startIndex
        return isCentury(s[i], s[i + 1]) && isDigit(s[i + 2]) && isDigit(s[i + 3]) && s[i + 4] == "-"
            && isDigit(s[i + 5]) && isDigit(s[i + 6]) && s[i + 7] == "-" && isDigit(s[i + 8]) && isDigit(s[i + 9])
    }
}
