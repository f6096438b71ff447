import Foundation
import TestSupport

/// A private CA and a server certificate it signed for `issuer.test` and 127.0.0.1, made by the
/// real `openssl` for each run (nothing secret is checked in).
struct TestCertificates {
    let caPEM: String
    let leafPEM: String
    let leafKeyPEM: String

    static let name = "issuer.test"

    init() throws {
        let openssl = try OpenSSLRunner()
        try openssl.runChecked([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=OutboundHTTP Test Root", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try openssl.runChecked([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=\(Self.name)",
        ])
        try openssl.write("leaf.ext", "subjectAltName=DNS:\(Self.name),IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try openssl.runChecked([
            "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "2", "-extfile", "leaf.ext",
        ])
        caPEM = try openssl.readText("ca.pem")
        leafPEM = try openssl.readText("leaf.pem")
        leafKeyPEM = try openssl.readText("leaf.key")
    }
}
