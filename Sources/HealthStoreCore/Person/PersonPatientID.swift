import ByteEncodings
import Crypto
import Foundation

extension ConsentStorage {
    /// The id of the one Patient the person is to apps (the SMART `patient` launch context and
    /// the id at `/fhir/Patient/{id}`).
    ///
    /// Derived from the store's anchor secret, so it is stable across restarts and engines,
    /// differs between people's stores, and says nothing about any provider's identifiers.
    public func personPatientID() async throws -> String {
        let key = SymmetricKey(data: try await anchorSecret())
        let mac = HMAC<SHA256>.authenticationCode(for: Data("healthrecords fhir patient v1".utf8), using: key)
        return "person-" + Hex.encode(Data(mac).prefix(16))
    }
}
