/// Why a parameter could not be read: which parameter, what was given and what was wanted.
///
/// Both front ends report these as they are — the server as a 400 `invalid_request` whose
/// message names the parameter, the CLI as a usage error naming its flag — so a user who gets
/// one from either learns the same thing.
public enum ParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value is not one of the names the parameter takes (a type, a sort key).
    case notOneOf(ParameterName, value: String, choices: [String])
    /// The value is not a date (see ``DateBound`` for the forms a date may take).
    case notADate(ParameterName, value: String)
    /// The value is not a whole number of zero or more.
    case notACount(ParameterName, value: String)
    /// The value is not a FHIR resource type name.
    case notAResourceType(ParameterName, value: String)
    /// The value is not an anchor this front end handed out.
    case notAnAnchor(ParameterName, value: String)
    /// The start of a range is not before its end, so nothing could match.
    case emptyRange(from: ParameterName, fromValue: String, to: ParameterName, toValue: String)
    /// A parameter that takes one value was given several.
    case repeated(ParameterName)
    /// A parameter that must name something named nothing.
    case missing(ParameterName)

    /// The parameter at fault (the end of the range, for an empty range).
    public var parameter: ParameterName {
        switch self {
        case .notOneOf(let p, _, _), .notADate(let p, _), .notACount(let p, _), .notAResourceType(let p, _), .notAnAnchor(let p, _),
            .repeated(let p), .missing(let p):
            return p
        case .emptyRange(_, _, let to, _): return to
        }
    }

    /// The message with parameters shown as `naming` shows them (the CLI passes its flag
    /// names); the value given is quoted, cut to 64 characters so an error stays one line.
    public func message(naming: (ParameterName) -> String = \.rawValue) -> String {
        func quoted(_ v: String) -> String { "\"" + (v.count > 64 ? String(v.prefix(63)) + "…" : v) + "\"" }
        switch self {
        case .notOneOf(let p, let v, let choices):
            return "\(naming(p)): \(quoted(v)) is not one of \(choices.joined(separator: ", "))"
        case .notADate(let p, let v):
            return "\(naming(p)): \(quoted(v)) is not a date (2024, 2024-05, 2024-05-01, an ISO 8601 date-time or seconds since 1970)"
        case .notACount(let p, let v):
            return "\(naming(p)): \(quoted(v)) is not a whole number of 0 or more"
        case .notAResourceType(let p, let v):
            return "\(naming(p)): \(quoted(v)) is not a FHIR resource type name"
        case .notAnAnchor(let p, let v):
            return "\(naming(p)): \(quoted(v)) is not an anchor this store returned"
        case .emptyRange(let from, let fv, let to, let tv):
            return "\(naming(from)) \(quoted(fv)) is not before \(naming(to)) \(quoted(tv)): nothing can match"
        case .repeated(let p):
            return "\(naming(p)) is given more than once"
        case .missing(let p):
            return "\(naming(p)) must name at least one value"
        }
    }

    public var description: String { message() }
}
