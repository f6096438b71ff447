/// Reads the module grid out of the SMART Health Cards spec SVGs, which draw each dark run
/// as an `h` stroke inside one path (`M4 4.5h7m2 0h2 …`) with a 4-module quiet zone.
enum SpecSVG {
    struct ParseError: Error, CustomStringConvertible {
        let reason: String
        var description: String { "spec SVG: \(reason)" }
    }

    static func modules(_ svg: String) throws -> (size: Int, modules: [Bool]) {
        guard let viewBoxRange = svg.range(of: "viewBox=\"0 0 ") else { throw ParseError(reason: "no viewBox") }
        let afterViewBox = svg[viewBoxRange.upperBound...]
        guard let total = Int(afterViewBox.prefix { $0.isNumber }) else { throw ParseError(reason: "bad viewBox") }
        let quiet = 4
        let size = total - 2 * quiet
        guard let strokeRange = svg.range(of: "stroke=\"#000000\" d=\"") else { throw ParseError(reason: "no dark path") }
        let path = svg[strokeRange.upperBound...].prefix { $0 != "\"" }

        var modules = [Bool](repeating: false, count: size * size)
        var x = 0.0, y = 0.0
        var scanner = Array(path.utf8)[...]
        func number() throws -> Double {
            while let c = scanner.first, c == UInt8(ascii: " ") || c == UInt8(ascii: ",") { scanner.removeFirst() }
            let text = scanner.prefix { ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
            scanner.removeFirst(text.count)
            guard let value = Double(String(decoding: text, as: UTF8.self)) else { throw ParseError(reason: "bad number") }
            return value
        }
        while let command = scanner.popFirst() {
            switch command {
            case UInt8(ascii: "M"): x = try number(); y = try number()
            case UInt8(ascii: "m"): x += try number(); y += try number()
            case UInt8(ascii: "h"):
                let length = try number()
                let row = Int(y - 0.5) - quiet
                for column in Int(x)..<Int(x + length) {
                    let c = column - quiet
                    guard row >= 0, row < size, c >= 0, c < size else { throw ParseError(reason: "stroke outside symbol") }
                    modules[row * size + c] = true
                }
                x += length
            case UInt8(ascii: " "): continue
            default: throw ParseError(reason: "unexpected path command \(Character(UnicodeScalar(command)))")
            }
        }
        return (size, modules)
    }
}
