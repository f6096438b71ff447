/// Corrects errors in one Reed–Solomon block (generator roots α^0 … α^(e−1)).
///
/// Berlekamp–Massey finds the error locator, a Chien search finds its roots and
/// Forney's formula gives the error values. The block is fixed in place only when
/// the whole correction is consistent, so a failure never leaves it half-changed.
enum ReedSolomonDecoder {
    /// Why a block could not be corrected.
    enum Failure: Error, Equatable {
        /// More errors than the block's error correction codewords can fix.
        case tooManyErrors
    }

    /// Corrects `block` (data followed by `eccCount` ECC codewords) in place.
    /// - Returns: how many codewords were changed.
    static func correct(_ block: inout [UInt8], eccCount: Int) throws(Failure) -> Int {
        let n = block.count
        guard eccCount > 0, eccCount < n, n <= 255 else { throw .tooManyErrors }
        let exp = GaloisField.exp
        let log = GaloisField.log

        var syndromes = [UInt8](repeating: 0, count: eccCount)
        var anyNonZero = false
        for j in 0..<eccCount {
            // Horner evaluation of the received polynomial at α^j.
            var value: UInt8 = 0
            for byte in block {
                value = (value == 0 ? 0 : exp[log[Int(value)] + j]) ^ byte
            }
            syndromes[j] = value
            if value != 0 { anyNonZero = true }
        }
        if !anyNonZero { return 0 }

        // Berlekamp–Massey.
        var locator: [UInt8] = [1]
        var previous: [UInt8] = [1]
        var errorCount = 0
        var shift = 1
        var previousDiscrepancy: UInt8 = 1
        for step in 0..<eccCount {
            var discrepancy = syndromes[step]
            if errorCount > 0 {
                for i in 1...errorCount where i < locator.count {
                    discrepancy ^= GaloisField.multiply(locator[i], syndromes[step - i])
                }
            }
            if discrepancy == 0 {
                shift += 1
                continue
            }
            let scale = GaloisField.divide(discrepancy, previousDiscrepancy)
            var updated = locator
            let needed = previous.count + shift
            if updated.count < needed { updated += [UInt8](repeating: 0, count: needed - updated.count) }
            for i in 0..<previous.count {
                updated[i + shift] ^= GaloisField.multiply(scale, previous[i])
            }
            if 2 * errorCount <= step {
                previous = locator
                errorCount = step + 1 - errorCount
                previousDiscrepancy = discrepancy
                shift = 1
            } else {
                shift += 1
            }
            locator = updated
        }
        while locator.count > 1 && locator[locator.count - 1] == 0 { locator.removeLast() }
        let degree = locator.count - 1
        guard degree == errorCount, degree > 0, 2 * degree <= eccCount else { throw .tooManyErrors }

        // Chien search: position p (power of x) is in error when Λ(α^−p) = 0.
        var positions: [Int] = []
        positions.reserveCapacity(degree)
        for p in 0..<n {
            let inversePower = (255 - p) % 255
            var value: UInt8 = 0
            for i in stride(from: degree, through: 0, by: -1) {
                value = (value == 0 ? 0 : exp[log[Int(value)] + inversePower]) ^ locator[i]
            }
            if value == 0 { positions.append(p) }
        }
        guard positions.count == degree else { throw .tooManyErrors }

        // Ω(x) = S(x)·Λ(x) mod x^eccCount.
        var evaluator = [UInt8](repeating: 0, count: eccCount)
        for i in 0..<eccCount {
            var sum: UInt8 = 0
            for k in 0...min(i, degree) {
                sum ^= GaloisField.multiply(locator[k], syndromes[i - k])
            }
            evaluator[i] = sum
        }

        var fixes: [(index: Int, value: UInt8)] = []
        for p in positions {
            let xInverse = GaloisField.alphaPower(-p)
            var omega: UInt8 = 0
            for i in stride(from: eccCount - 1, through: 0, by: -1) {
                omega = GaloisField.multiply(omega, xInverse) ^ evaluator[i]
            }
            // Formal derivative keeps only odd powers in characteristic 2.
            var derivative: UInt8 = 0
            var i = 1
            while i <= degree {
                derivative ^= GaloisField.multiply(locator[i], GaloisField.alphaPower(-p * (i - 1)))
                i += 2
            }
            guard derivative != 0 else { throw .tooManyErrors }
            let magnitude = GaloisField.multiply(GaloisField.alphaPower(p), GaloisField.divide(omega, derivative))
            fixes.append((n - 1 - p, magnitude))
        }
        var corrected = block
        for fix in fixes { corrected[fix.index] ^= fix.value }
        // A miscorrection beyond capacity usually leaves non-zero syndromes; reject it.
        for j in 0..<eccCount {
            var value: UInt8 = 0
            for byte in corrected {
                value = (value == 0 ? 0 : exp[log[Int(value)] + j]) ^ byte
            }
            if value != 0 { throw .tooManyErrors }
        }
        block = corrected
        return fixes.count
    }
}
