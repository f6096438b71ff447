/// The SMART Health Cards numeric QR encoding, needed here only to build test inputs:
/// each JWS character c becomes the two decimal digits of ascii(c) − 45.
enum SHCNumeric {
    static func digits(forJWS jws: String) -> String {
        var result = ""
        result.reserveCapacity(jws.utf8.count * 2)
        for byte in jws.utf8 {
            let value = Int(byte) - 45
            result += value < 10 ? "0\(value)" : "\(value)"
        }
        return result
    }
}
