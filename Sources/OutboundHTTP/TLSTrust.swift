import NIOSSL

/// Which certificate authorities an https request trusts. The system's by default; tests (and
/// deployments with a private CA) give their own roots instead. Verification is always full:
/// chain to a trusted root, and the leaf must name the host (or the literal address).
///
/// The TLS context is built once per trust, not per request (loading the system's roots is
/// the expensive part of a small request).
public struct TLSTrust: Sendable {
    let context: Result<NIOSSLContext, OutboundError>

    private init(roots: NIOSSLTrustRoots) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = roots
        do { context = .success(try NIOSSLContext(configuration: configuration)) } catch {
            context = .failure(.tls(host: "-", reason: "cannot set up TLS: \(error)"))
        }
    }

    /// The system's certificate authorities.
    public static let system = TLSTrust(roots: .default)

    /// Only the root certificates in this PEM text.
    public static func pem(_ text: String) throws(OutboundError) -> TLSTrust {
        do {
            return TLSTrust(roots: .certificates(try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))))
        } catch {
            throw .tls(host: "-", reason: "not a PEM certificate: \(error)")
        }
    }
}
