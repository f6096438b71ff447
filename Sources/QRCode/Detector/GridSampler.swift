/// Reads the module grid by mapping each module centre into the thresholded image.
enum GridSampler {
    /// Samples a `size` × `size` grid, every point shifted by `nudge` pixels; nil when the symbol reaches too far outside the image.
    static func sample(_ image: BinaryImage, transform: PerspectiveTransform, size: Int, nudge: QRPoint = QRPoint(x: 0, y: 0)) -> [Bool]? {
        var modules = [Bool](repeating: false, count: size * size)
        let width = image.width, height = image.height
        let ok: Bool = image.bits.withUnsafeBufferPointer { bits in
            for y in 0..<size {
                for x in 0..<size {
                    let p = transform.apply(Double(x) + 0.5, Double(y) + 0.5)
                    // Also keeps the Int conversion below from trapping on absurd projections.
                    guard p.x.isFinite, p.y.isFinite, abs(p.x) < 1e9, abs(p.y) < 1e9 else { return false }
                    var px = Int((p.x + nudge.x).rounded(.down)), py = Int((p.y + nudge.y).rounded(.down))
                    // Allow a pixel of slack at the border, as a symbol may touch the image edge.
                    if px < -1 || py < -1 || px > width || py > height { return false }
                    px = Swift.min(Swift.max(px, 0), width - 1)
                    py = Swift.min(Swift.max(py, 0), height - 1)
                    modules[y * size + x] = bits[py * width + px] != 0
                }
            }
            return true
        }
        return ok ? modules : nil
    }
}
