extension QRMatrix {
    /// An SVG document of the symbol: one white background and one path of dark runs.
    /// - Throws: `QRRenderError` as `render(moduleSize:quietZone:)` does.
    public func svgString(moduleSize: Int, quietZone: Int = 4) throws -> String {
        let side = try imageSide(moduleSize: moduleSize, quietZone: quietZone)
        let units = size + 2 * quietZone
        var path = ""
        path.reserveCapacity(size * size * 2)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard modules[y * size + x] else { x += 1; continue }
                var run = 1
                while x + run < size && modules[y * size + x + run] { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)" viewBox="0 0 \(units) \(units)" shape-rendering="crispEdges">\
        <rect width="\(units)" height="\(units)" fill="#ffffff"/><path fill="#000000" d="\(path)"/></svg>

        """
    }
}
