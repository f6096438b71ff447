@testable import QRCode

/// Image manipulations the reader must survive, written independently of the library.
enum ImageTransforms {
    static func make(_ width: Int, _ height: Int, _ pixels: [UInt8]) -> GrayImage {
        try! GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Rotation by a multiple of 90° clockwise: exact, no resampling.
    static func rotate(_ image: GrayImage, quarterTurns: Int) -> GrayImage {
        var result = image
        for _ in 0..<(((quarterTurns % 4) + 4) % 4) {
            let w = result.width, h = result.height
            var out = [UInt8](repeating: 255, count: w * h)
            for y in 0..<h {
                for x in 0..<w { out[x * h + (h - 1 - y)] = result.pixels[y * w + x] }
            }
            result = make(h, w, out)
        }
        return result
    }

    static func bilinear(_ image: GrayImage, _ fx: Double, _ fy: Double) -> Double {
        let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
        let ax = fx - Double(x0), ay = fy - Double(y0)
        func p(_ x: Int, _ y: Int) -> Double { Double(image[x, y]) }  // outside reads white
        let top = p(x0, y0) * (1 - ax) + p(x0 + 1, y0) * ax
        let bottom = p(x0, y0 + 1) * (1 - ax) + p(x0 + 1, y0 + 1) * ax
        return top * (1 - ay) + bottom * ay
    }

    /// Scales by `factor` with bilinear interpolation (pixel centres aligned).
    static func scale(_ image: GrayImage, by factor: Double) -> GrayImage {
        let w = Int((Double(image.width) * factor).rounded()), h = Int((Double(image.height) * factor).rounded())
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let v = bilinear(image, (Double(x) + 0.5) / factor - 0.5, (Double(y) + 0.5) / factor - 0.5)
                out[y * w + x] = UInt8(Swift.min(255, Swift.max(0, v.rounded())))
            }
        }
        return make(w, h, out)
    }

    /// 3×3 box blur (edges use the pixels that exist).
    static func boxBlur(_ image: GrayImage) -> GrayImage {
        let w = image.width, h = image.height
        var out = image.pixels
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0, n = 0
                for dy in -1...1 {
                    for dx in -1...1 where x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h {
                        sum += Int(image.pixels[(y + dy) * w + x + dx]); n += 1
                    }
                }
                out[y * w + x] = UInt8(sum / n)
            }
        }
        return make(w, h, out)
    }

    /// Rotation by any angle about the centre onto a canvas large enough to hold it, white outside.
    static func rotate(_ image: GrayImage, degrees: Double) -> GrayImage {
        let angle = degrees * Double.pi / 180
        let c = cos(angle), s = sin(angle)
        let w = Double(image.width), h = Double(image.height)
        let newW = Int((abs(w * c) + abs(h * s)).rounded(.up)), newH = Int((abs(w * s) + abs(h * c)).rounded(.up))
        var out = [UInt8](repeating: 255, count: newW * newH)
        for y in 0..<newH {
            for x in 0..<newW {
                let dx = Double(x) + 0.5 - Double(newW) / 2, dy = Double(y) + 0.5 - Double(newH) / 2
                let sx = c * dx + s * dy + w / 2 - 0.5, sy = -s * dx + c * dy + h / 2 - 0.5
                out[y * newW + x] = UInt8(Swift.min(255, Swift.max(0, bilinear(image, sx, sy).rounded())))
            }
        }
        return make(newW, newH, out)
    }

    /// Mirror image, left to right.
    static func mirror(_ image: GrayImage) -> GrayImage {
        var out = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width { out[y * image.width + x] = image.pixels[y * image.width + image.width - 1 - x] }
        }
        return make(image.width, image.height, out)
    }

    /// Darkens the image with a strong diagonal light gradient and lifts the black level,
    /// so no single global threshold separates modules everywhere.
    static func unevenLighting(_ image: GrayImage) -> GrayImage {
        var out = image.pixels
        let w = Double(image.width), h = Double(image.height)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let light = 0.25 + 0.75 * (Double(x) / w + Double(y) / h) / 2
                let v = (40 + Double(image.pixels[y * image.width + x]) * 0.8) * light
                out[y * image.width + x] = UInt8(Swift.min(255, v))
            }
        }
        return make(image.width, image.height, out)
    }

    /// Pastes images side by side on one white canvas with a gap between them.
    static func sideBySide(_ images: [GrayImage], gap: Int) -> GrayImage {
        let w = images.reduce(0) { $0 + $1.width } + gap * (images.count + 1)
        let h = (images.map(\.height).max() ?? 0) + 2 * gap
        var canvas = try! GrayImage(width: w, height: h)
        var left = gap
        for image in images {
            for y in 0..<image.height {
                for x in 0..<image.width { canvas[left + x, gap + y] = image[x, y] }
            }
            left += image.width + gap
        }
        return canvas
    }
}

import Foundation
