import Foundation
import NetworkAddresses
import OutboundHTTP
import Testing

/// https to a pinned loopback address: SNI and the certificate check use the host name while
/// TCP goes to the checked address.
@Suite(.serialized) struct TLSPinningTests {
    let certificates: TestCertificates
    let server: TestHTTPServer
    let policy = OutboundPolicy(addresses: AddressPolicy(allowLoopback: true), timeout: .seconds(5))

    init() async throws {
        certificates = try TestCertificates()
        server = try await TestHTTPServer(tls: (certificates.leafPEM, certificates.leafKeyPEM)) { _ in .respond(status: 200, body: "secure") }
    }

    func client(resolving name: String, trust: TLSTrust) -> PinnedHTTPClient {
        PinnedHTTPClient(policy: policy, resolver: ScriptedResolver([name: [["127.0.0.1"]]]), trust: trust)
    }

    @Test func verifiesTheHostNameAndSendsItAsSNIWhileConnectingToTheAddress() async throws {
        let response = try await client(resolving: TestCertificates.name, trust: try .pem(certificates.caPEM))
            .get(URL(string: "https://\(TestCertificates.name):\(server.port)/")!)
        #expect(String(decoding: response.body, as: UTF8.self) == "secure")
        #expect(server.serverNames == [TestCertificates.name])
        try await server.stop()
    }

    @Test func refusesACertificateForAnotherName() async throws {
        // The certificate also names 127.0.0.1, the address connected to: only the host name counts.
        await #expect {
            try await client(resolving: "other.test", trust: try .pem(certificates.caPEM)).get(URL(string: "https://other.test:\(server.port)/")!)
        } throws: { error in
            if case .tls = error as? OutboundError { return true }
            return false
        }
        #expect(server.requests.isEmpty)
        try await server.stop()
    }

    @Test func refusesAnUntrustedChain() async throws {
        await #expect {
            try await client(resolving: TestCertificates.name, trust: .system).get(URL(string: "https://\(TestCertificates.name):\(server.port)/")!)
        } throws: { error in
            if case .tls = error as? OutboundError { return true }
            return false
        }
        #expect(server.requests.isEmpty)
        try await server.stop()
    }

    @Test func aLiteralAddressIsCheckedAgainstTheCertificatesAddresses() async throws {
        let response = try await PinnedHTTPClient(policy: policy, trust: try .pem(certificates.caPEM)).get(URL(string: "https://127.0.0.1:\(server.port)/")!)
        #expect(response.status == 200)
        #expect(server.serverNames == [nil], "no SNI for an address")
        try await server.stop()
    }
}
