import FHIR

/// The readable XHTML a section carries: a table of what it holds, every value escaped.
enum SummaryNarrative {
    /// A section's `div`: a table with one row per item, or a sentence when there is none.
    static func div(_ rows: [[String]], header: [String], empty: String) -> String {
        guard !rows.isEmpty else { return #"<div xmlns="http://www.w3.org/1999/xhtml"><p>"# + escape(empty) + "</p></div>" }
        var html = #"<div xmlns="http://www.w3.org/1999/xhtml"><table><thead><tr>"#
        for h in header { html += "<th>" + escape(h) + "</th>" }
        html += "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>"
            for cell in row { html += "<td>" + escape(cell) + "</td>" }
            html += "</tr>"
        }
        return html + "</tbody></table></div>"
    }

    static func escape(_ text: String) -> String { XMLText.escape(text) }
}
