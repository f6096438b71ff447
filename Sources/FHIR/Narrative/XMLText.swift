/// Text as XML character data or attribute value (a narrative's XHTML, an SVG drawing): `&`,
/// `<`, `>` and both quotes escaped, so whatever a provider wrote is shown, never parsed.
public enum XMLText {
    /// The escaped text.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
