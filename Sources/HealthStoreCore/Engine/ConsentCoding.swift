import FHIR
import Foundation

/// How consent rows hold apps and card shares, the same for every engine; the engine seals
/// what this makes and opens what it reads.
package enum ConsentCoding {
    /// An app's details (name, purpose, privacy URL, requested and required types) as JSON bytes, before sealing.
    package static func details(_ r: AppRegistration) -> Data {
        Data(JSONWriter.minified(.object(JSONObject([
            "name": .string(r.name),
            "purpose": .string(r.purpose),
            "privacyPolicyURL": .string(r.privacyPolicyURL.absoluteString),
            "requestedTypes": .array(r.requestedTypes.sorted().map { .string($0.name) }),
            "requiredTypes": .array(r.requiredTypes.sorted().map { .string($0.name) }),
            "redirectURIs": .array(r.redirectURIs.map { .string($0.absoluteString) }),
            "clientType": .string(r.clientType.rawValue),
            "jwks": r.jwks.map(JSONValue.string) ?? .null,
            "jwksURI": r.jwksURI.map { .string($0.absoluteString) } ?? .null,
        ]))))
    }

    /// Rebuilds an app from its row: id, secret digest, registration date and opened details.
    package static func app(id: String, secretDigest: Data, registered: Double, details: Data, accessRevision: Int = 0) throws -> StoredApp {
        guard let o = (try? JSONReader().read(details))?.objectValue, let url = o.string("privacyPolicyURL").flatMap(URL.init(string:)) else {
            throw HealthStoreError.corruptRecord("app \(id) has damaged details")
        }
        func types(_ key: String) -> Set<HealthDataType> { Set(o.list(key).compactMap { $0.stringValue.flatMap(HealthDataType.init(name:)) }) }
        do {
            let registration = try AppRegistration(
                id: id, name: o.string("name") ?? "", purpose: o.string("purpose") ?? "", privacyPolicyURL: url,
                requestedTypes: types("requestedTypes"), requiredTypes: types("requiredTypes"), registeredDate: Date(timeIntervalSince1970: registered),
                redirectURIs: o.list("redirectURIs").compactMap { $0.stringValue.flatMap(URL.init(string:)) },
                clientType: o.string("clientType").flatMap(ClientType.init(rawValue:)) ?? .confidentialSymmetric, jwks: o.string("jwks"),
                jwksURI: o.string("jwksURI").flatMap(URL.init(string:)))
            return StoredApp(registration: registration, secretDigest: secretDigest, accessRevision: accessRevision)
        } catch {
            throw HealthStoreError.corruptRecord("app \(id): \(error)")
        }
    }

    /// A grant read back from its row's text columns.
    package static func grant(
        appID: String, type typeName: String, decision: String, newData: String, approvedThrough: Int64, changedAnchor: Int64, decided: Double,
        historyDays: Int64?
    ) throws -> ReadGrant {
        guard let type = HealthDataType(name: typeName), let decision = GrantDecision(rawValue: decision), let newData = NewDataPolicy(rawValue: newData),
            let history = historyDays.map({ HistoryWindow.days(Int($0)) }) ?? .all
        else { throw HealthStoreError.corruptRecord("grant of app \(appID) for \(typeName)") }
        return ReadGrant(
            appID: appID, type: type, decision: decision, newData: newData, approvedThrough: QueryAnchor(rawValue: approvedThrough),
            changedAnchor: QueryAnchor(rawValue: changedAnchor), decidedDate: Date(timeIntervalSince1970: decided), history: history)
    }

    /// An audit entry's types as stored: names separated by spaces.
    package static func typeList(_ types: [HealthDataType]) -> String { types.map(\.name).joined(separator: " ") }

    /// Reads ``typeList(_:)`` back.
    package static func types(_ list: String) -> [HealthDataType] { list.split(separator: " ").compactMap { HealthDataType(name: String($0)) } }

    /// A list of identifiers (a share's cards, an app's medications) as JSON bytes, before sealing.
    package static func identifierList(_ identifiers: [String]) -> Data { Data(JSONWriter.minified(.array(identifiers.map(JSONValue.string)))) }

    /// Reads ``identifierList(_:)`` back (opened).
    package static func identifiers(_ data: Data) -> [String] { (try? JSONReader().read(data))?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// The identity key of a source identifier.
    package static func sourceIdentity(_ identifier: String, _ sealer: any RecordSealer) -> Data { sealer.identityKey(["source", identifier]) }
}
