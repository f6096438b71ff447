import Foundation
import PatientSummary

extension FHIRService {
    /// `GET /fhir/Patient/{id}/$summary`: the International Patient Summary of what the app may
    /// read — its grants and watermarks, narrowed by its token's scopes. A section it may not read
    /// is built as an empty one is, so a denial looks exactly like no data.
    func summary(_ caller: FHIRCaller, now: Date) async throws -> [UInt8] {
        let reach = caller.scopes?.search
        let builder = PatientSummaryBuilder(view: caller.view, now: now, admits: { reach?.admits($0) ?? true })
        return [UInt8](try await builder.build().data)
    }
}
