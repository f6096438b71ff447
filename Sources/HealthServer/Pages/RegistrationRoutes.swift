import ClinicalRecords
import Foundation
import HealthStoreCore
import Hummingbird

/// The person's page for registering a SMART on FHIR app (`/apps/register`): what
/// `healthrecords apps register --redirect-uri …` does, in a browser. The app may ask for any
/// category; its scopes and the person's consent page narrow that. A confidential app's secret
/// is shown once, on the answer page.
struct RegistrationRoutes {
    let consent: ConsentManager
    let address: ServerAddress
    let pages: PersonPages

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/apps/register") { _, context -> Response in
            pages.page(context, RegisterPage(values: FormFields(), error: nil))
        }
        pages.post(group, "/apps/register") { form, context -> Response in
            let redirects = (form["redirectUris"] ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let clientType = ClientType(rawValue: form["clientType"] ?? "") ?? .public
            let jwks = form["jwks"].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
            let jwksURI = form["jwksUri"].flatMap { $0.isEmpty ? nil : $0 }
            func again(_ error: String) -> Response {
                pages.page(context, RegisterPage(values: form, error: error), status: .badRequest)
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
                credentials = try await consent.register(
                    name: form["name"] ?? "", purpose: form["purpose"] ?? "", privacyPolicyURL: privacy,
                    requestedTypes: Set(ConsentCategory.allCases.map(HealthDataType.init)), redirectURIs: uris, clientType: clientType,
                    jwks: clientType == .confidentialAsymmetric ? jwks : nil, jwksURI: clientType == .confidentialAsymmetric ? keysURL : nil)
            } catch let e as ConsentError {
                return again("The app was not registered: \(e.description).")
            }
            let secret = clientType == .confidentialSymmetric ? " Its client secret, shown only now: \(credentials.secret)" : ""
            return pages.message(context, "Registered", "The app's client id is \(credentials.appID).\(secret) It connects at \(address.baseURL)/fhir.")
        }
    }
}
