import ClinicalRecords
import Foundation
import HealthStoreCore
import Hummingbird

/// The person's page for registering a SMART on FHIR app (`/apps/register`): what
/// `healthrecords apps register --redirect-uri …` does, in a browser. The app may ask for any
/// category; its scopes and the person's consent page narrow that. A confidential app's secret
/// is shown once, on the answer page.
struct RegistrationRoutes {
    let state: ServerState
    let person: PersonRoutes

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/apps/register") { _, context -> Response in
            person.page(context, "register", ["title": "Register an app"])
        }
        group.post("/apps/register") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            let redirects = (form["redirectUris"] ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let clientType = ClientType(rawValue: form["clientType"] ?? "") ?? .public
            let jwks = form["jwks"].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
            let jwksURI = form["jwksUri"].flatMap { $0.isEmpty ? nil : $0 }
            func again(_ error: String) -> Response {
                var values: [String: Any] = ["title": "Register an app", "error": error]
                for key in ["name", "purpose", "privacyUrl", "redirectUris", "jwks", "jwksUri"] { values[key] = form[key] ?? "" }
                var response = person.page(context, "register", values)
                response.status = .badRequest
                return response
            }
            guard let privacy = URL(string: form["privacyUrl"] ?? "") else { return again("The privacy policy URL is not a URL.") }
            var uris: [URL] = []
            for text in redirects {
                guard let u = URL(string: text) else { return again("This redirect URI is not a URL: \(text)") }
                uris.append(u)
            }
            guard !uris.isEmpty else { return again("Give at least one redirect URI.") }
            var keysURL: URL?
            if let jwksURI {
                guard let u = URL(string: jwksURI) else { return again("The JWKS URL is not a URL.") }
                keysURL = u
            }
            let credentials: AppCredentials
            do {
                credentials = try await state.consent.register(
                    name: form["name"] ?? "", purpose: form["purpose"] ?? "", privacyPolicyURL: privacy,
                    requestedTypes: Set(ConsentCategory.allCases.map(HealthDataType.init)), redirectURIs: uris, clientType: clientType,
                    jwks: clientType == .confidentialAsymmetric ? jwks : nil, jwksURI: clientType == .confidentialAsymmetric ? keysURL : nil)
            } catch let e as ConsentError {
                return again("The app was not registered: \(e.description).")
            }
            let secret = clientType == .confidentialSymmetric ? " Its client secret, shown only now: \(credentials.secret)" : ""
            return person.page(context, "message", [
                "title": "Registered", "message": "The app's client id is \(credentials.appID).\(secret) It connects at \(state.baseURL)/fhir.",
            ])
        }
    }
}
