/// One reduced image of Adam7 interlacing (or the whole image when not interlaced).
struct Adam7Pass: Sendable {
    let index: Int
    let x0: Int, y0: Int, dx: Int, dy: Int
    let width: Int, height: Int

    init(index: Int, x0: Int, y0: Int, dx: Int, dy: Int, imageWidth: Int, imageHeight: Int) {
        self.index = index
        self.x0 = x0
        self.y0 = y0
        self.dx = dx
        self.dy = dy
        width = imageWidth > x0 ? (imageWidth - x0 + dx - 1) / dx : 0
        height = imageHeight > y0 ? (imageHeight - y0 + dy - 1) / dy : 0
    }

    static let adam7: [(x0: Int, y0: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]
}
