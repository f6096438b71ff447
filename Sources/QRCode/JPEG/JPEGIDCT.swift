/// The inverse DCT with dequantization: the integer Loeffler–Ligtenberg–Moschytz algorithm of
/// libjpeg's `jidctint.c` ("islow", libjpeg's default), step for step with the same constants
/// and rounding, so the output matches libjpeg-turbo's sample for sample on valid input.
///
/// Each pass runs on all eight columns (then rows) at once in `SIMD8<Int32>` lanes, as
/// libjpeg-turbo's SIMD version does in 32-bit lanes; valid 8-bit data stays far inside
/// that range. Wrapping operators make corrupt coefficients give garbage pixels, never a trap.
enum JPEGIDCT {
    typealias Vector = SIMD8<Int32>

    private static let constBits: Int32 = 13
    private static let pass1Bits: Int32 = 2

    private static let fix0_298631336: Int32 = 2446
    private static let fix0_390180644: Int32 = 3196
    private static let fix0_541196100: Int32 = 4433
    private static let fix0_765366865: Int32 = 6270
    private static let fix0_899976223: Int32 = 7373
    private static let fix1_175875602: Int32 = 9633
    private static let fix1_501321110: Int32 = 12299
    private static let fix1_847759065: Int32 = 15137
    private static let fix1_961570560: Int32 = 16069
    private static let fix2_053119869: Int32 = 16819
    private static let fix2_562915447: Int32 = 20995
    private static let fix3_072711026: Int32 = 25172

    /// One 1-D 8-point IDCT on eight lanes at once; `shift` is the pass's DESCALE.
    @inline(__always)
    private static func idct8(
        _ x0: Vector, _ x1: Vector, _ x2: Vector, _ x3: Vector, _ x4: Vector, _ x5: Vector, _ x6: Vector, _ x7: Vector,
        shift: Int32
    ) -> (Vector, Vector, Vector, Vector, Vector, Vector, Vector, Vector) {
        // Even part.
        let z1 = (x2 &+ x6) &* fix0_541196100
        let tmp2e = z1 &+ x6 &* -fix1_847759065
        let tmp3e = z1 &+ x2 &* fix0_765366865
        let tmp0e = (x0 &+ x4) &<< constBits
        let tmp1e = (x0 &- x4) &<< constBits
        let tmp10 = tmp0e &+ tmp3e, tmp13 = tmp0e &- tmp3e
        let tmp11 = tmp1e &+ tmp2e, tmp12 = tmp1e &- tmp2e
        // Odd part.
        let o1 = x7 &+ x1, o2 = x5 &+ x3, o3 = x7 &+ x3, o4 = x5 &+ x1
        let z5 = (o3 &+ o4) &* fix1_175875602
        let m1 = o1 &* -fix0_899976223, m2 = o2 &* -fix2_562915447
        let m3 = o3 &* -fix1_961570560 &+ z5, m4 = o4 &* -fix0_390180644 &+ z5
        let tmp0 = x7 &* fix0_298631336 &+ m1 &+ m3
        let tmp1 = x5 &* fix2_053119869 &+ m2 &+ m4
        let tmp2 = x3 &* fix3_072711026 &+ m2 &+ m3
        let tmp3 = x1 &* fix1_501321110 &+ m1 &+ m4
        let round = Vector(repeating: 1 &<< (shift - 1))
        return ((tmp10 &+ tmp3 &+ round) &>> shift, (tmp11 &+ tmp2 &+ round) &>> shift,
                (tmp12 &+ tmp1 &+ round) &>> shift, (tmp13 &+ tmp0 &+ round) &>> shift,
                (tmp13 &- tmp0 &+ round) &>> shift, (tmp12 &- tmp1 &+ round) &>> shift,
                (tmp11 &- tmp2 &+ round) &>> shift, (tmp10 &- tmp3 &+ round) &>> shift)
    }

    /// Transposes eight vectors (an 8×8 matrix, one row each): three "unzips" of the 64 values,
    /// each of which rotates the six index bits by one, together swap row and column bits.
    @inline(__always)
    private static func transpose<T: SIMDScalar>(_ m: inout (SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>)) {
        for _ in 0..<3 {
            m = (SIMD8(lowHalf: m.0.evenHalf, highHalf: m.1.evenHalf), SIMD8(lowHalf: m.2.evenHalf, highHalf: m.3.evenHalf),
                 SIMD8(lowHalf: m.4.evenHalf, highHalf: m.5.evenHalf), SIMD8(lowHalf: m.6.evenHalf, highHalf: m.7.evenHalf),
                 SIMD8(lowHalf: m.0.oddHalf, highHalf: m.1.oddHalf), SIMD8(lowHalf: m.2.oddHalf, highHalf: m.3.oddHalf),
                 SIMD8(lowHalf: m.4.oddHalf, highHalf: m.5.oddHalf), SIMD8(lowHalf: m.6.oddHalf, highHalf: m.7.oddHalf))
        }
    }

    /// Dequantizes and inverse-transforms one block (natural order) into 8×8 samples.
    /// - Parameter output: the block's top-left sample; rows are `stride` apart.
    static func transform(_ input: UnsafePointer<Int32>, quant: UnsafePointer<Int32>, output: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ r: Int) -> Vector {
            UnsafeRawPointer(input + 8 * r).loadUnaligned(as: Vector.self) &* UnsafeRawPointer(quant + 8 * r).loadUnaligned(as: Vector.self)
        }
        // Pass 1 on columns: lane c of each row vector is column c. Results carry 2^pass1Bits.
        let c = idct8(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7), shift: constBits - pass1Bits)
        var m = c
        transpose(&m)
        // Pass 2 on rows: now lane r of vector k is row r's k-th workspace value. The final shift
        // also removes the factor 8 of the 2-D DCT.
        let r = idct8(m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7, shift: constBits + pass1Bits + 3)
        @inline(__always) func sample(_ v: Vector) -> SIMD8<UInt8> {
            SIMD8<UInt8>(truncatingIfNeeded: (v &+ 128).clamped(lowerBound: .zero, upperBound: Vector(repeating: 255)))
        }
        var bytes = (sample(r.0), sample(r.1), sample(r.2), sample(r.3), sample(r.4), sample(r.5), sample(r.6), sample(r.7))
        transpose(&bytes)
        let out = UnsafeMutableRawPointer(output)
        out.storeBytes(of: bytes.0, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.1, toByteOffset: stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.2, toByteOffset: 2 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.3, toByteOffset: 3 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.4, toByteOffset: 4 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.5, toByteOffset: 5 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.6, toByteOffset: 6 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: bytes.7, toByteOffset: 7 * stride, as: SIMD8<UInt8>.self)
    }

    /// A block whose only nonzero coefficient is DC: every sample is the same, computed with
    /// the same rounding as the full transform.
    @inline(__always)
    static func transformDC(_ dc: Int32, quant: Int32, output: UnsafeMutablePointer<UInt8>, stride: Int) {
        // Pass 1 scales by 2^pass1Bits; pass 2's shortcut is DESCALE(w, pass1Bits + 3).
        let w = (dc &* quant) &<< pass1Bits
        let v = ((w &+ (1 &<< (pass1Bits + 2))) &>> (pass1Bits + 3)) &+ 128
        let value = UInt8(truncatingIfNeeded: v < 0 ? 0 : v > 255 ? 255 : v)
        let fill = SIMD8<UInt8>(repeating: value)
        let out = UnsafeMutableRawPointer(output)
        for r in 0..<8 { out.storeBytes(of: fill, toByteOffset: r * stride, as: SIMD8<UInt8>.self) }
    }
}
