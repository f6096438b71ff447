import CBOR

/// Date-time and bignum tags that the harness's cbor2 refuses: there the harness fails before
/// the schema is ever applied, so such a payload is invalid wherever the tag sits.
enum DCCSchemaDecodability {
    /// One violation per refused tag.
    static func problems(_ value: CBORValue) -> [DCCSchemaViolation] {
        var found: [DCCSchemaViolation] = []
        walk(value, path: "", inMap: true, into: &found)
        return found
    }

    private static func walk(_ value: CBORValue, path: String, inMap: Bool, into found: inout [DCCSchemaViolation]) {
        switch value {
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                walk(element, path: DCCSchemaPath.element(path, i), inMap: false, into: &found)
            }
        case .map(let entries):
            for entry in entries {
                let child = DCCSchemaPath.member(path, DCCSchemaPath.key(entry.key))
                walk(entry.key, path: child, inMap: false, into: &found)
                walk(entry.value, path: child, inMap: true, into: &found)
            }
        case .tagged(let tag, let content):
            switch tag {
            case 0, 1:
                guard let moment = DCCDateTimeTag.moment(tag: tag, content: content) else {
                    found.append(DCCSchemaViolation(path: path, message: "date-time tag \(tag) holds no valid date-time"))
                    return
                }
                // Only in a map does the harness's hook convert to UTC, which can overflow.
                if inMap, DCCDateTimeTag.hookText(moment) == nil {
                    found.append(DCCSchemaViolation(path: path, message: "date-time tag \(tag) is out of range in UTC"))
                }
            case 2, 3:
                if content.bytes == nil {
                    found.append(DCCSchemaViolation(path: path, message: "bignum tag \(tag) holds no byte string"))
                }
            case 55799:
                walk(content, path: path, inMap: inMap, into: &found)
            default:
                walk(content, path: path, inMap: false, into: &found)
            }
        default:
            break
        }
    }
}
