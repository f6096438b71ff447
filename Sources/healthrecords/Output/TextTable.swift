import Foundation

/// Aligned columns for people reading a terminal.
///
/// On a terminal the table fits its width: the widest columns give up space first and their
/// cells end in `…`. Piped or redirected, every cell is written whole, so scripts see all of it.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    mutating func add(_ cells: String...) { rows.append(cells) }
    mutating func add(_ cells: [String]) { rows.append(cells) }

    var rendered: String { rendered(width: TerminalWidth.current) }

    /// The table within `width` columns (`nil`: as wide as its cells).
    func rendered(width: Int?) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (k, cell) in row.enumerated() where k < widths.count { widths[k] = max(widths[k], cell.count) }
        }
        if let width { widths = Self.fit(widths, into: width, minimum: headers.map { min($0.count, 4) }) }
        func clip(_ c: String, _ w: Int) -> String { c.count <= w ? c : String(c.prefix(max(w - 1, 0))) + "…" }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { k, c in
                guard k < widths.count else { return c }
                let shown = clip(c, widths[k])
                return k == cells.count - 1 ? shown : shown + String(repeating: " ", count: widths[k] - shown.count)
            }.joined(separator: "  ")
        }
        var out = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        out += rows.map(line)
        return out.joined(separator: "\n")
    }

    /// Column widths that fit `total` columns with two spaces between them, taking from the
    /// widest column first, never below a column's minimum.
    static func fit(_ widths: [Int], into total: Int, minimum: [Int]) -> [Int] {
        var w = widths
        var over = w.reduce(0, +) + 2 * max(w.count - 1, 0) - total
        while over > 0 {
            guard let k = w.indices.filter({ w[$0] > max(minimum[$0], 1) }).max(by: { w[$0] < w[$1] }) else { break }
            let others = w.enumerated().filter { $0.offset != k }.map(\.element).max() ?? 0
            let take = min(over, max(1, w[k] - max(others, minimum[k], 1)), w[k] - max(minimum[k], 1))
            w[k] -= max(take, 1)
            over -= max(take, 1)
        }
        return w
    }
}

/// The width of the terminal standard output is on, or `nil` when it is not a terminal.
enum TerminalWidth {
    static var current: Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }
}
