import Foundation

extension Data {
    /// Lowercase hexadecimal.
    package var hexString: String { map { String(format: "%02x", $0) }.joined() }

    /// Reads lowercase or uppercase hexadecimal.
    package init?(hexString: String) {
        guard hexString.count % 2 == 0, hexString.count <= 256 else { return nil }
        var bytes: [UInt8] = []
        var it = hexString.utf8.makeIterator()
        while let a = it.next(), let b = it.next() {
            guard let v = UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(v)
        }
        self.init(bytes)
    }
}
