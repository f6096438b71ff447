import FHIR
import Foundation

/// The JSON forms that list cards: a `.smart-health-card` file (`{"verifiableCredential":[…]}`)
/// and a FHIR `$health-cards-issue` `Parameters` response.
///
/// Only the format lives here; deciding what an input is, and what to say when it holds no card,
/// is the card-input reader's (CardScanning).
public enum HealthCardContainer {
    /// The JWS texts a container lists, in order.
    ///
    /// A container that lists none throws ``HealthCardContainerError/noCredentials``: an empty
    /// list verifies nothing, and must never read as a success.
    public static func jwsTexts(json data: Data) throws(HealthCardContainerError) -> [String] {
        let value: JSONValue
        do { value = try JSONReader().read(data) } catch { throw .notJSON(error) }
        guard let o = value.objectValue else { throw .notAnObject }
        var texts: [String] = []
        if let list = o["verifiableCredential"] {
            guard let a = list.arrayValue else { throw .credentialsNotAList }
            for (k, v) in a.enumerated() {
                guard let s = v.stringValue else { throw .credentialNotAString(index: k) }
                texts.append(s)
            }
        } else if o.string("resourceType") == "Parameters" {
            for p in o.list("parameter") where p["name"]?.stringValue == "verifiableCredential" {
                guard let s = p["valueString"]?.stringValue else { throw .parameterWithoutValue }
                texts.append(s)
            }
        } else {
            throw .unknownShape
        }
        if texts.isEmpty { throw .noCredentials }
        return texts
    }
}

/// Why JSON is not a card container, or lists no card.
public enum HealthCardContainerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON.
    case notJSON(JSONError)
    /// The JSON is not an object.
    case notAnObject
    /// `verifiableCredential` is not an array.
    case credentialsNotAList
    /// An entry of `verifiableCredential` is not a string.
    case credentialNotAString(index: Int)
    /// A `verifiableCredential` parameter carries no `valueString`.
    case parameterWithoutValue
    /// Neither a `.smart-health-card` file nor a `Parameters` resource.
    case unknownShape
    /// The container lists no card.
    case noCredentials

    public var description: String {
        switch self {
        case .notJSON(let e): return "not JSON: \(e)"
        case .notAnObject: return "not a JSON object"
        case .credentialsNotAList: return "verifiableCredential is not an array"
        case .credentialNotAString(let k): return "verifiableCredential[\(k)] is not a string"
        case .parameterWithoutValue: return "a verifiableCredential parameter has no valueString"
        case .unknownShape: return "neither a .smart-health-card file (verifiableCredential) nor a Parameters resource"
        case .noCredentials: return "the file holds no verifiableCredential"
        }
    }
}
