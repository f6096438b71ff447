import Testing

@testable import healthrecords

/// Tables fit a terminal's width by clipping the widest columns; piped output keeps every cell whole.
@Suite struct TextTableTests {
    func table() -> TextTable {
        var t = TextTable("id", "status", "name", "source")
        t.add("1", "imported", String(repeating: "Glucose [Mass/volume] in Blood ", count: 3), "Saint Anne's Hospital of a very long name")
        t.add("2", "failed", "Asthma", "clinic")
        return t
    }

    @Test func fitsTheWidthByClippingTheWidestColumns() {
        for width in [40, 60, 80, 120] {
            let lines = table().rendered(width: width).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= width }, "\(width): \(lines.map(\.count))")
            #expect(lines[0].hasPrefix("id  status"))
        }
        #expect(table().rendered(width: 60).contains("…"))
    }

    @Test func withoutAWidthEveryCellIsWhole() {
        let text = table().rendered(width: nil)
        #expect(text.contains(String(repeating: "Glucose [Mass/volume] in Blood ", count: 3)) && !text.contains("…"))
        #expect(table().rendered(width: 500) == text)
    }
}
