/// Undoes PNG filtering and interlacing and turns every pixel into luminance over white.
struct PNGPixelConverter {
    let header: PNGHeader
    let palette: [UInt8]?
    let transparency: [UInt8]?

    func makeImage(from raw: inout [UInt8]) throws(PNGError) -> GrayImage {
        try makeImage(from: &raw, reducedBy: 1)
    }

    /// The image made `factor` times smaller on each side: each pixel the mean of a
    /// `factor` × `factor` block (fewer at the right and bottom edges). The full-size image is
    /// never held, only a running sum per output pixel.
    func makeImage(from raw: inout [UInt8], reducedBy factor: Int) throws(PNGError) -> GrayImage {
        let width = header.width
        let outWidth = (width + factor - 1) / factor, outHeight = (header.height + factor - 1) / factor
        var pixels = [UInt8](repeating: 255, count: factor == 1 ? width * header.height : 0)
        var sums = [UInt32](repeating: 0, count: factor == 1 ? 0 : outWidth * outHeight)
        let paletteLuma = paletteLuminance()
        var offset = 0
        for pass in header.passes where pass.width > 0 && pass.height > 0 {
            let rowBytes = header.rowBytes(width: pass.width)
            try unfilter(&raw, offset: offset, rowBytes: rowBytes, rows: pass.height, pass: pass.index)
            var rowSamples = [Int](repeating: 0, count: pass.width * header.channels)
            for row in 0..<pass.height {
                let start = offset + row * (rowBytes + 1) + 1
                raw.withUnsafeBufferPointer { buffer in
                    unpackSamples(UnsafeBufferPointer(rebasing: buffer[start..<(start + rowBytes)]), count: pass.width * header.channels, into: &rowSamples)
                }
                let y = pass.y0 + row * pass.dy
                if factor == 1 {
                    try convertRow(rowSamples, width: pass.width, paletteLuma: paletteLuma) { i, value in
                        pixels[y * width + pass.x0 + i * pass.dx] = value
                    }
                } else {
                    let outRow = (y / factor) * outWidth
                    try convertRow(rowSamples, width: pass.width, paletteLuma: paletteLuma) { i, value in
                        sums[outRow + (pass.x0 + i * pass.dx) / factor] &+= UInt32(value)
                    }
                }
            }
            offset += pass.height * (rowBytes + 1)
        }
        guard factor > 1 else { return GrayImage(unchecked: width, height: header.height, pixels: pixels) }
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        for oy in 0..<outHeight {
            let rows = UInt32(min(factor, header.height - oy * factor))
            for ox in 0..<outWidth {
                let count = rows * UInt32(min(factor, width - ox * factor))
                out[oy * outWidth + ox] = UInt8((sums[oy * outWidth + ox] + count / 2) / count)
            }
        }
        return GrayImage(unchecked: outWidth, height: outHeight, pixels: out)
    }

    /// Reverses the five filter types in place, row by row, within one pass.
    private func unfilter(_ raw: inout [UInt8], offset: Int, rowBytes: Int, rows: Int, pass: Int) throws(PNGError) {
        let bpp = header.filterStride
        let failure: PNGError? = raw.withUnsafeMutableBufferPointer { data -> PNGError? in
            for row in 0..<rows {
                let lineStart = offset + row * (rowBytes + 1)
                let filter = data[lineStart]
                let cur = lineStart + 1
                let prev = cur - (rowBytes + 1)
                let hasPrevious = row > 0
                switch filter {
                case 0:
                    break
                case 1:
                    if rowBytes > bpp { for i in bpp..<rowBytes { data[cur + i] &+= data[cur + i - bpp] } }
                case 2:
                    if hasPrevious { for i in 0..<rowBytes { data[cur + i] &+= data[prev + i] } }
                case 3:
                    for i in 0..<rowBytes {
                        let left = i >= bpp ? Int(data[cur + i - bpp]) : 0
                        let up = hasPrevious ? Int(data[prev + i]) : 0
                        data[cur + i] &+= UInt8((left + up) >> 1)
                    }
                case 4:
                    for i in 0..<rowBytes {
                        let a = i >= bpp ? Int(data[cur + i - bpp]) : 0
                        let b = hasPrevious ? Int(data[prev + i]) : 0
                        let c = (i >= bpp && hasPrevious) ? Int(data[prev + i - bpp]) : 0
                        let p = a + b - c
                        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                        let predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                        data[cur + i] &+= UInt8(predictor)
                    }
                default:
                    return .invalidFilterType(filter, row: row, pass: pass)
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Splits a row into samples at the header's bit depth (16-bit samples stay 16-bit).
    private func unpackSamples(_ row: UnsafeBufferPointer<UInt8>, count: Int, into samples: inout [Int]) {
        switch header.bitDepth {
        case 8:
            for i in 0..<count { samples[i] = Int(row[i]) }
        case 16:
            for i in 0..<count { samples[i] = Int(row[2 * i]) << 8 | Int(row[2 * i + 1]) }
        default:
            let depth = header.bitDepth
            let perByte = 8 / depth
            let mask = (1 << depth) - 1
            for i in 0..<count {
                let byte = Int(row[i / perByte])
                let shift = 8 - depth * (i % perByte + 1)
                samples[i] = (byte >> shift) & mask
            }
        }
    }

    /// Luminance over white of each palette entry (with its tRNS alpha).
    private func paletteLuminance() -> [UInt8] {
        guard let palette else { return [] }
        return (0..<(palette.count / 3)).map { i in
            let luma = Self.luminance(Int(palette[3 * i]), Int(palette[3 * i + 1]), Int(palette[3 * i + 2]))
            let alpha = transparency.map { i < $0.count ? Int($0[i]) : 255 } ?? 255
            return Self.overWhite(luma, alpha: alpha)
        }
    }

    private func convertRow(_ s: [Int], width: Int, paletteLuma: [UInt8], store: (Int, UInt8) -> Void) throws(PNGError) {
        let depth = header.bitDepth
        let maxValue = (1 << depth) - 1
        // Scale any depth to 8 bits with rounding.
        func to8(_ v: Int) -> Int { depth == 8 ? v : (v * 255 + maxValue / 2) / maxValue }
        let key = transparency.map { t in (0..<(t.count / 2)).map { Int(t[2 * $0]) << 8 | Int(t[2 * $0 + 1]) } }
        switch header.colorType {
        case 0:
            // A tRNS value above the bit depth's range matches no pixel.
            let transparentGray = key?.first
            for i in 0..<width {
                if let transparentGray, s[i] == transparentGray {
                    store(i, 255)
                } else {
                    store(i, UInt8(to8(s[i])))
                }
            }
        case 2:
            for i in 0..<width {
                let r = s[3 * i], g = s[3 * i + 1], b = s[3 * i + 2]
                if let key, key.count == 3, key[0] == r, key[1] == g, key[2] == b {
                    store(i, 255)
                } else {
                    store(i, UInt8(Self.luminance(to8(r), to8(g), to8(b))))
                }
            }
        case 3:
            for i in 0..<width {
                let index = s[i]
                guard index < paletteLuma.count else { throw .paletteIndexOutOfRange(index: index, paletteSize: paletteLuma.count) }
                store(i, paletteLuma[index])
            }
        case 4:
            for i in 0..<width {
                store(i, Self.overWhite(to8(s[2 * i]), alpha: to8(s[2 * i + 1])))
            }
        default:
            for i in 0..<width {
                let luma = Self.luminance(to8(s[4 * i]), to8(s[4 * i + 1]), to8(s[4 * i + 2]))
                store(i, Self.overWhite(luma, alpha: to8(s[4 * i + 3])))
            }
        }
    }

    /// Rec. 601 luma, rounded.
    @inline(__always)
    static func luminance(_ r: Int, _ g: Int, _ b: Int) -> Int {
        (r * 299 + g * 587 + b * 114 + 500) / 1000
    }

    @inline(__always)
    static func overWhite(_ luma: Int, alpha: Int) -> UInt8 {
        UInt8((luma * alpha + 255 * (255 - alpha) + 127) / 255)
    }
}
