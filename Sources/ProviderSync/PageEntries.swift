import FHIR

/// What a page holds, as the store's producer reads it: resources already made (a single
/// resource), or a Bundle still on its tape whose entries become resources as they are taken.
enum PageEntries: Sendable {
    case resources([FHIRResource])
    case taped(TapedBundle)

    /// How many places `resource(_:)` reads.
    var slots: Int {
        switch self {
        case .resources(let list): return list.count
        case .taped(let bundle): return bundle.count
        }
    }

    /// The resource at `i`; `nil` for an OperationOutcome (it describes the search, not the person).
    func resource(_ i: Int) throws(FHIRError) -> FHIRResource? {
        let resource: FHIRResource?
        switch self {
        case .resources(let list): resource = list[i]
        case .taped(let bundle): resource = try bundle.entry(i).resource
        }
        return resource?.resourceType.rawValue == "OperationOutcome" ? nil : resource
    }

    /// The JSON of the entry a reference points to (a display name from a Medication).
    func resolve(_ reference: String) -> JSONObject? {
        guard case .taped(let bundle) = self else { return nil }
        return try? bundle.resource(for: reference)?.json()
    }

    /// Every resource, OperationOutcomes left out (made all at once: tests and small pages).
    func resources() throws(FHIRError) -> [FHIRResource] {
        var out: [FHIRResource] = []
        for i in 0..<slots { if let r = try resource(i) { out.append(r) } }
        return out
    }

    /// How many resources there are, OperationOutcomes left out, without making any.
    var count: Int {
        switch self {
        case .resources(let list): return list.count { $0.resourceType.rawValue != "OperationOutcome" }
        case .taped(let bundle): return (0..<bundle.count).count { bundle.resourceType($0) != "OperationOutcome" }
        }
    }
}
