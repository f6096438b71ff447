/// Aligned columns for people reading a terminal.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    mutating func add(_ cells: String...) { rows.append(cells) }
    mutating func add(_ cells: [String]) { rows.append(cells) }

    var rendered: String {
        var widths = headers.map(\.count)
        for row in rows {
            for (k, cell) in row.enumerated() where k < widths.count { widths[k] = max(widths[k], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { k, c in
                k == cells.count - 1 ? c : c + String(repeating: " ", count: widths[k] - c.count)
            }.joined(separator: "  ")
        }
        var out = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        out += rows.map(line)
        return out.joined(separator: "\n")
    }
}
