/// Huffman codes for the compressor: optimal lengths under DEFLATE's length limits, and the
/// canonical codewords those lengths stand for.
enum HuffmanCodeBuilder {
    /// Code lengths for `frequencies` that minimise the encoded size with no codeword longer than
    /// `limit` bits (package-merge, Larmore and Hirschberg 1990).
    ///
    /// Symbols of frequency zero get no codeword. Fewer than two used symbols still get two
    /// one-bit codewords (the used one and the lowest other), as zlib writes them: every code is
    /// then complete, which inflaters require of the code-length code and some of all codes.
    static func lengths(_ frequencies: [Int], limit: Int) -> [UInt8] {
        var lengths = [UInt8](repeating: 0, count: frequencies.count)
        var leaves = frequencies.indices.filter { frequencies[$0] > 0 }
        guard leaves.count >= 2 else {
            let used = leaves.first ?? 0
            lengths[used] = 1
            lengths[used == 0 ? 1 : 0] = 1
            return lengths
        }
        leaves.sort { (frequencies[$0], $0) < (frequencies[$1], $1) }
        let n = leaves.count
        assert(1 << limit >= n, "\(n) symbols do not fit codewords of \(limit) bits")

        // Nodes 0..<n are the leaves in weight order; later nodes are packages of two nodes.
        var weight = leaves.map { frequencies[$0] }
        var children: [(Int32, Int32)] = Array(repeating: (-1, -1), count: n)
        weight.reserveCapacity(n * limit)
        children.reserveCapacity(n * limit)
        var list = [Int32](0..<Int32(n))
        var next: [Int32] = []
        next.reserveCapacity(2 * n)
        for _ in 1..<limit {
            // Merge the leaves with the pairs of the previous list, lightest first.
            next.removeAll(keepingCapacity: true)
            var leaf = 0
            var pair = 0
            let pairs = list.count / 2
            while leaf < n || pair < pairs {
                let packageWeight = pair < pairs ? weight[Int(list[2 * pair])] + weight[Int(list[2 * pair + 1])] : Int.max
                if leaf < n, weight[leaf] <= packageWeight {
                    next.append(Int32(leaf))
                    leaf += 1
                } else {
                    weight.append(packageWeight)
                    children.append((list[2 * pair], list[2 * pair + 1]))
                    next.append(Int32(weight.count - 1))
                    pair += 1
                }
            }
            swap(&list, &next)
        }
        // The 2n − 2 lightest items of the last list are the solution; a leaf's code length is
        // the number of them (packages opened down to leaves) that hold it.
        var stack = Array(list.prefix(2 * n - 2))
        while let node = stack.popLast() {
            let (left, right) = children[Int(node)]
            if left < 0 {
                lengths[leaves[Int(node)]] += 1
            } else {
                stack.append(left)
                stack.append(right)
            }
        }
        return lengths
    }

    /// The canonical codewords (RFC 1951 §3.2.2) of `lengths`, bit-reversed for LSB-first output.
    static func codewords(_ lengths: [UInt8]) -> [UInt16] {
        var counts = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { counts[Int(length)] += 1 }
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1..<16 {
            code = (code + counts[bits - 1]) << 1
            nextCode[bits] = code
        }
        return lengths.map { length in
            guard length > 0 else { return 0 }
            let codeword = nextCode[Int(length)]
            nextCode[Int(length)] += 1
            return UInt16(reversed(codeword, bits: Int(length)))
        }
    }

    /// The low `bits` bits of `value` in reverse order: Huffman codewords are defined most
    /// significant bit first but sent least significant bit first.
    static func reversed(_ value: Int, bits: Int) -> Int {
        var result = 0
        var v = value
        for _ in 0..<bits {
            result = result << 1 | v & 1
            v >>= 1
        }
        return result
    }
}
