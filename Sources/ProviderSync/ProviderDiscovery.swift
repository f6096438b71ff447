import Foundation
import SMARTAuthorization

/// Reads what a provider publishes about itself: SMART endpoints from
/// `.well-known/smart-configuration` (SMART App Launch 2), or from the CapabilityStatement's
/// oauth-uris extension for older servers; capabilities from `metadata`.
struct ProviderDiscovery: Sendable {
    let http: ProviderHTTP
    let base: URL

    /// The SMART endpoints.
    func smartConfiguration() async throws(ProviderSyncError) -> SMARTConfiguration {
        let wellKnown = base.appending(fhirPath: ".well-known/smart-configuration")
        let first = try await http.get(wellKnown, bearer: nil, accept: "application/json")
        var reasons: [String] = []
        if first.status == 200 {
            do { return try SMARTConfiguration(wellKnown: first.body, base: base) } catch { reasons.append("\(wellKnown.absoluteString): \(error)") }
        } else {
            reasons.append("\(wellKnown.absoluteString) answered HTTP \(first.status)")
        }
        let metadata = base.appending(fhirPath: "metadata")
        let second = try await http.get(metadata, bearer: nil, accept: "application/fhir+json, application/json+fhir, application/json")
        if second.status == 200 {
            do { return try SMARTConfiguration(capabilityStatement: second.body, base: base) } catch { reasons.append("\(metadata.absoluteString): \(error)") }
        } else {
            reasons.append("\(metadata.absoluteString) answered HTTP \(second.status)")
        }
        throw .discovery(base: base.absoluteString, reason: reasons.joined(separator: "; "))
    }

    /// The CapabilityStatement's facts and the provider's clock (its `Date` header).
    func capabilities() async throws(ProviderSyncError) -> (ProviderCapabilities, Date?) {
        let metadata = base.appending(fhirPath: "metadata")
        let response = try await http.get(metadata, bearer: nil, accept: "application/fhir+json, application/json+fhir, application/json")
        let date = response.header("Date").flatMap(Self.httpDate)
        // A server without a readable CapabilityStatement is still searched, type by type.
        guard response.status == 200, let capabilities = try? ProviderCapabilities(statement: response.body) else { return (ProviderCapabilities(), date) }
        return (capabilities, date)
    }

    static func httpDate(_ text: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.date(from: text)
    }
}
