import FHIR

extension MedicationEntry {
    /// The entry as the command line (`medications --json`) and the app API (`GET /medications`)
    /// write it: id, name, status, RxNorm codes, form, sources, first and latest dates, records.
    public var json: JSONValue {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return .object(JSONObject([
            JSONMember("id", .string(id)), JSONMember("name", .string(name)), JSONMember("status", .string(status.rawValue)),
            JSONMember("rxNorm", .array(rxNormCodes.map(JSONValue.string))), JSONMember("form", text(form)),
            JSONMember("sources", .array(sources.map { .string($0.name) })), JSONMember("firstDate", text(firstDate?.text)),
            JSONMember("latestDate", text(latestDate?.text)),
            JSONMember("records", .array(records.map { r in
                .object(JSONObject([
                    JSONMember("source", .string(r.source)), JSONMember("resourceType", .string(r.resourceType.rawValue)),
                    JSONMember("id", .string(r.identifier)),
                ]))
            })),
        ]))
    }
}
