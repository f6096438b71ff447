import ByteEncodings
import FHIR
import Foundation

/// A JWE protected header as SMART Health Links use it: `alg: dir`, `enc: A256GCM`, an optional
/// `cty` and an optional `zip: DEF`. Other members (`kid`…) are ignored; `crit` is refused.
struct JWEProtectedHeader: Sendable, Equatable {
    /// The file's content type, when the header names one (receivers tolerate its absence).
    let contentType: String?
    /// Whether the plaintext is raw DEFLATE (`zip: DEF`).
    let compressed: Bool

    /// The header a sharer writes: `{"alg":"dir","enc":"A256GCM","cty":…}`, and `"zip":"DEF"`
    /// last when compressed — the spec's example order, so its example JWE is reproduced exactly.
    static func json(contentType: String, compressed: Bool) -> String {
        var members = [
            JSONMember("alg", .string(SHLFileEncryption.algorithm)),
            JSONMember("enc", .string(SHLFileEncryption.encryption)),
            JSONMember("cty", .string(contentType)),
        ]
        if compressed { members.append(JSONMember("zip", .string(SHLFileEncryption.compression))) }
        return JSONWriter.minifiedString(.object(JSONObject(members)))
    }

    /// Reads the first part of a compact JWE.
    ///
    /// - Throws: ``SHLError/malformedJWE(_:)``.
    init(encoded: Substring) throws(SHLError) {
        let bytes = try SHLFileEncryption.decodePart(encoded, .header)
        guard let object = (try? JSONReader().read(bytes))?.objectValue else { throw SHLError.malformedJWE(.headerNotJSONObject) }
        let alg = try Self.string("alg", in: object)
        guard alg == SHLFileEncryption.algorithm else { throw .malformedJWE(.algorithm(alg)) }
        let enc = try Self.string("enc", in: object)
        guard enc == SHLFileEncryption.encryption else { throw .malformedJWE(.encryption(enc)) }
        if object["crit"] != nil { throw .malformedJWE(.criticalHeader) }
        let zip = try Self.string("zip", in: object)
        if let zip, zip != SHLFileEncryption.compression { throw .malformedJWE(.compression(zip)) }
        compressed = zip != nil
        contentType = try Self.string("cty", in: object)
    }

    /// A string member, `nil` when absent.
    private static func string(_ name: String, in object: JSONObject) throws(SHLError) -> String? {
        switch object[name] {
        case .none: return nil
        case .some(.string(let value)): return value
        case .some: throw .malformedJWE(.memberType(name))
        }
    }
}
