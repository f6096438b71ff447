/// The luminance component's samples while decoding: whole blocks, MCU padding included,
/// so the inverse DCT writes 8×8 at a time without edge cases; cropped at the end.
struct JPEGLumaPlane {
    /// Samples per row: the component's padded block columns × 8.
    let stride: Int
    /// Rows: the component's padded block rows × 8.
    let rows: Int
    var pixels: [UInt8]

    init(component: JPEGFrame.Component) {
        stride = component.paddedBlocksWide * 8
        rows = component.paddedBlocksHigh * 8
        // Mid-gray: what a block never coded (a scan missing from a broken file) looks like.
        pixels = [UInt8](repeating: 128, count: stride * rows)
    }

    /// The frame-sized image: the plane cropped to the frame, or, when the luminance component
    /// is subsampled (rare: Y is normally the full-resolution component), stretched to it by
    /// repeating samples.
    func image(frame: JPEGFrame) -> GrayImage {
        let width = frame.width, height = frame.height
        let luma = frame.luma
        var out = [UInt8](repeating: 0, count: width * height)
        if luma.h == frame.maxH, luma.v == frame.maxV {
            for y in 0..<height {
                out.replaceSubrange((y * width)..<((y + 1) * width), with: pixels[(y * stride)..<(y * stride + width)])
            }
        } else {
            for y in 0..<height {
                let sourceRow = (y * luma.v / frame.maxV) * stride
                for x in 0..<width {
                    out[y * width + x] = pixels[sourceRow + x * luma.h / frame.maxH]
                }
            }
        }
        return GrayImage(unchecked: width, height: height, pixels: out)
    }
}
