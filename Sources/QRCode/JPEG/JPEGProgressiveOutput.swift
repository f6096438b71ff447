/// The last step of a progressive decode: every luminance block through the inverse DCT.
enum JPEGProgressiveOutput {
    static func transform(_ coefficients: [Int16], component: JPEGFrame.Component, quantization: [Int32], into plane: inout JPEGLumaPlane) {
        let block = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
        let quant = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
        defer { block.deallocate(); quant.deallocate() }
        quant.initialize(from: quantization, count: 64)
        let stride = plane.stride, blocksPerRow = component.paddedBlocksWide
        coefficients.withUnsafeBufferPointer { source in
            plane.pixels.withUnsafeMutableBufferPointer { pixels in
                guard let input = source.baseAddress, let output = pixels.baseAddress else { return }
                for blockY in 0..<component.blocksHigh {
                    for blockX in 0..<component.blocksWide {
                        let values = input + (blockY * blocksPerRow + blockX) * 64
                        let target = output + blockY * 8 * stride + blockX * 8
                        var anyAC: Int16 = 0
                        for i in 1..<64 { anyAC |= values[i] }
                        if anyAC == 0 {
                            JPEGIDCT.transformDC(Int32(values[0]), quant: quant[0], output: target, stride: stride)
                            continue
                        }
                        for i in 0..<64 { block[i] = Int32(values[i]) }
                        JPEGIDCT.transform(block, quant: quant, output: target, stride: stride)
                    }
                }
            }
        }
    }
}
