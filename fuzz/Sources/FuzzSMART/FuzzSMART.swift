import Foundation
import SMARTAuthorization

/// What an app sends the SMART authorization server: scope strings, client key sets (a JWKS
/// given at registration or fetched from its URL) and client assertions; and what a provider
/// answers this product as a SMART client: its configuration, token answers, OAuth errors,
/// brands bundles and the redirect's query.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let scopes = try? ScopeRequest(parsing: text) {
        // What is granted is written in a form that reads back as itself and grants no more.
        let granted = scopes.granted
        guard let again = try? ScopeRequest(parsing: granted.text) else { preconditionFailure("a granted scope does not parse: \(granted.text)") }
        precondition(again.granted == granted)
        precondition(granted.isNarrowing(of: granted))
        precondition(granted.consentCategories.isSubset(of: scopes.consentCategories))
    }
    _ = try? ClientKeySet(data: bytes)
    _ = try? ClientAssertion.claimedClientID(text)
    _ = try? ClientAssertion.verify(text, clientID: "c", tokenEndpoint: "https://h.example/token", keys: fixedKeys, now: Date(timeIntervalSince1970: 1_700_000_000))
    if let token = try? TokenResponse(data: bytes) {
        precondition(!token.accessToken.isEmpty && token.tokenType.lowercased() == "bearer")
    }
    _ = OAuthErrorResponse(data: bytes)
    _ = try? SMARTConfiguration(wellKnown: bytes, base: providerBase)
    _ = try? SMARTConfiguration(capabilityStatement: bytes, base: providerBase)
    _ = try? UserAccessBrand.read(bundle: bytes)
    if case .code(let code)? = try? AuthorizationCallback.parse(query: text, expectedState: "fixed-state-value") { precondition(!code.isEmpty) }
    return 0
}

let providerBase = URL(string: "https://ehr.example.org/fhir")!

/// A real P-384 public key, so that assertions get as far as their signature check.
let fixedKeys: ClientKeySet = {
    guard let keys = try? ClientKeySet(json: #"{"keys":[{"kty":"EC","crv":"P-384","kid":"k","x":"cM_TdB7fzsMoFk9Astc0yVQpgCZFBtc6V9p27sb0prkEc1BCG24VLqysZxkhh-AU","y":"s8sdxuAhUWogGtLHlNBedpfWrdX87P0N7GJkXYp5YO8IuY3onkH303xTx07IV2Dp"}]}"#)
    else { preconditionFailure("the fixed key set does not parse") }
    return keys
}()
