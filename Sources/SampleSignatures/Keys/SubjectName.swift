import SwiftASN1
import X509

/// Parses a simple subject name such as `CN=Glucose Meter Co, O=Example, C=US`
/// into a swift-certificates `DistinguishedName`.
///
/// Components are separated by `,` (or `/` in OpenSSL's `/CN=…/O=…` form) and
/// written most-general-last as in RFC 4514 text; the encoded order is the
/// reverse, so `CN=A, O=B` encodes as O=B then CN=A, exactly as OpenSSL does
/// for `-subj /O=B/CN=A`. Escapes are not supported. Accepted types: CN, O,
/// OU, C, L, ST.
enum SubjectName {
    static func parse(_ text: String) throws(KeyError) -> DistinguishedName {
        let characters = Array(text)
        let slashForm = characters.first == "/"
        let separator: Character = slashForm ? "/" : ","
        var components: [(offset: Int, text: String)] = []
        var start = slashForm ? 1 : 0
        for index in start...characters.count {
            if index == characters.count || characters[index] == separator {
                components.append((start, String(characters[start..<index])))
                start = index + 1
            }
        }
        var attributes: [RelativeDistinguishedName.Attribute] = []
        for component in components {
            let trimmed = component.text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty, components.count == 1 { throw .invalidSubjectName(.empty) }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw .invalidSubjectName(.missingEquals(offset: component.offset))
            }
            let type = trimmed[..<equals].trimmingCharacters(in: .whitespaces).uppercased()
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { throw .invalidSubjectName(.emptyValue(offset: component.offset)) }
            let attribute: RelativeDistinguishedName.Attribute
            switch type {
            case "CN": attribute = .init(type: .RDNAttributeType.commonName, utf8String: value)
            case "O": attribute = .init(type: .RDNAttributeType.organizationName, utf8String: value)
            case "OU": attribute = .init(type: .RDNAttributeType.organizationalUnitName, utf8String: value)
            case "L": attribute = .init(type: .RDNAttributeType.localityName, utf8String: value)
            case "ST": attribute = .init(type: .RDNAttributeType.stateOrProvinceName, utf8String: value)
            case "C":
                guard let country = try? RelativeDistinguishedName.Attribute(type: .RDNAttributeType.countryName, printableString: value)
                else { throw .invalidSubjectName(.emptyValue(offset: component.offset)) }
                attribute = country
            default:
                throw .invalidSubjectName(.unknownAttributeType(offset: component.offset))
            }
            attributes.append(attribute)
        }
        guard !attributes.isEmpty else { throw .invalidSubjectName(.empty) }
        // RFC 4514 text lists the most specific RDN first; the slash form lists it last.
        let ordered = slashForm ? attributes : attributes.reversed()
        return DistinguishedName(ordered.map { RelativeDistinguishedName($0) })
    }
}
