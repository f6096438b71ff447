import Foundation

/// One `-----BEGIN label-----` … `-----END label-----` block of a PEM file, kept as text so
/// swift-crypto's own PEM readers get exactly one block (openssl's `ecparam -genkey` writes an
/// `EC PARAMETERS` block before the key, which those readers refuse).
struct PEMBlock: Sendable, Hashable {
    /// The label: `PRIVATE KEY`, `EC PRIVATE KEY`, `RSA PRIVATE KEY`, `PUBLIC KEY`…
    let label: String
    /// The block from its BEGIN line through its END line.
    let text: String

    /// Every well-formed block of `text`, in order (text outside blocks is ignored, as openssl
    /// ignores it).
    static func blocks(in text: String) -> [PEMBlock] {
        var result: [PEMBlock] = []
        var rest = Substring(text)
        while let begin = rest.range(of: "-----BEGIN ") {
            let afterBegin = rest[begin.upperBound...]
            guard let labelEnd = afterBegin.range(of: "-----") else { break }
            let label = String(afterBegin[..<labelEnd.lowerBound])
            let endMarker = "-----END \(label)-----"
            guard let end = afterBegin.range(of: endMarker) else { break }
            result.append(PEMBlock(label: label, text: String(rest[begin.lowerBound..<end.upperBound])))
            rest = afterBegin[end.upperBound...]
        }
        return result
    }
}
