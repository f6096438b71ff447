/// Where a `JSONDecoder` failure happened, as `files[1].contentType`, for error messages.
enum DecodingErrorPath {
    /// The path of the member that failed; empty when the document itself is wrong (not JSON,
    /// not an object).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "" }
        if case .keyNotFound(let key, let context) = error { return format(context.codingPath + [key]) }
        if case .typeMismatch(_, let context) = error { return format(context.codingPath) }
        if case .valueNotFound(_, let context) = error { return format(context.codingPath) }
        if case .dataCorrupted(let context) = error { return format(context.codingPath) }
        return ""
    }

    private static func format(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += (out.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return out
    }
}
