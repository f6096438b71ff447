import SMARTAuthorization

/// The one SMART base of a server for many people: `<base>/fhir`, with `/authorize`, `/token`,
/// `/revoke`, `/introspect` and the discovery documents at the root.
///
/// An app registered in the operator's catalogue can be set up once with this base instead of a
/// base per person (`<base>/p/<id>/fhir`). The person is whoever signs in — or the person a
/// proxy picks on the consent page — and every code and token then carries that person's prefix
/// (``PersonPrefix``), by which the root sends the app's later requests to their server. Id
/// tokens of grants made here are signed with one server-wide key, published at the root's
/// JWKS, so an app checks them without knowing whose they are.
struct SharedSMARTBase: Sendable {
    /// The root's address (known once the server listens, without a public URL).
    let address: ServerAddress
    /// The server-wide id-token key (derived from a secret of the registry).
    let signer: IDTokenSigner

    /// The root's endpoints: the FHIR base apps name as `aud`, and the authorization server.
    var endpoints: SMARTEndpoints { SMARTEndpoints(base: address.baseURL) }
}
