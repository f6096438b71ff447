import ArgumentParser
import DigitalCovidCertificates
import Foundation
import JOSE
import OutboundHTTP
import SmartHealthCards

/// How SMART Health Cards are checked: where keys come from, whom to trust, and when.
struct CardVerificationOptions: ParsableArguments {
    @Option(name: .customLong("keys"), help: ArgumentHelp("A JWKS file, for any issuer, or ISS=FILE for one issuer.", valueName: "[ISS=]FILE"))
    var keys: [String] = []

    @Option(name: .customLong("issuer-files"), help: ArgumentHelp("Answer fetches for ISS from DIR/.well-known/ (jwks.json, crl/<kid>.json).", valueName: "ISS=DIR"))
    var issuerFiles: [String] = []

    @Option(help: ArgumentHelp("A VCI issuer directory (participating_issuers) or snapshot; its issuers are trusted.", valueName: "FILE"))
    var directory: String?

    @Option(name: .customLong("trust"), help: ArgumentHelp("Trust this issuer (exact iss); repeatable.", valueName: "ISS"))
    var trusted: [String] = []

    @Option(name: .customLong("x5c-root"), help: ArgumentHelp("A PEM root certificate for x5c chains; repeatable.", valueName: "CERT.pem"))
    var x5cRoots: [String] = []

    @Option(
        name: .customLong("dsc"),
        help: ArgumentHelp("An EU DCC Document Signer Certificate (PEM, DER or base64 DER; a file may hold several); repeatable.", valueName: "FILE"))
    var documentSigners: [String] = []

    @Option(
        help: ArgumentHelp(
            "Verify as of this time: a date (its first instant), a date-time (no zone means UTC) or seconds since 1970 (default: now).",
            valueName: "DATE"))
    var at: DateArgument?

    @Flag(help: "Never use the network: keys only from --keys, --issuer-files and --directory.")
    var offline = false

    /// The time from `--at`, read by the vocabulary's date rule as every other date option is;
    /// now without it.
    func time() -> Date { at?.instant ?? Date() }

    /// The verifier these options describe.
    func verifier() throws -> SmartHealthCardVerifier {
        var sources: [any IssuerKeySource] = []
        var anyIssuer: [JWKSet] = []
        var byIssuer: [String: JWKSet] = [:]
        for spec in issuerFiles {
            guard let (iss, dir) = Self.split(spec) else { throw CommandFailure.usage("--issuer-files needs ISS=DIR, got \(spec)") }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw CommandFailure.usage("--issuer-files: \(dir) is not a folder")
            }
            sources.append(IssuerFilesKeySource(issuer: iss, directory: URL(fileURLWithPath: dir)))
        }
        for spec in keys {
            let (iss, file) = Self.split(spec) ?? (nil, spec)
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw CommandFailure.usage("--keys: cannot read \(file)") }
            let set: JWKSet
            do { set = try JWKSet(data: data) } catch { throw CommandFailure.usage("--keys \(file): \(error)") }
            if let iss { byIssuer[iss] = set } else { anyIssuer.append(set) }
        }
        if !byIssuer.isEmpty { sources.append(StaticKeySource(keySets: byIssuer)) }
        var directoryValue: IssuerDirectory? = nil
        if let directory {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: directory)) } catch { throw CommandFailure.usage("--directory: cannot read \(directory)") }
            do { directoryValue = try IssuerDirectory(data: data) } catch { throw CommandFailure.usage("--directory \(directory): \(error)") }
            sources.append(directoryValue!.keySource)
        }
        if !anyIssuer.isEmpty { sources.append(AnyIssuerKeySource(anyIssuer)) }
        if !offline { sources.append(WellKnownKeySource(fetcher: PinnedHTTPFetcher())) }
        var pems: [String] = []
        for path in x5cRoots {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { throw CommandFailure.usage("--x5c-root: cannot read \(path)") }
            pems.append(pem)
        }
        let x5c: X5CValidator
        do { x5c = try X5CValidator(pemRoots: pems) } catch { throw CommandFailure.usage("--x5c-root: not a PEM certificate (\(error))") }
        return SmartHealthCardVerifier(
            keys: CachingKeySource(KeySourceChain(sources)), trust: TrustPolicy(allowList: Set(trusted), directory: directoryValue),
            x5c: x5c)
    }

    /// The EU DCC verifier: the DSCs of `--dsc` are its trust list.
    func dccVerifier() throws -> DCCVerifier {
        var list = DSCTrustList()
        for path in documentSigners {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw CommandFailure.usage("--dsc: cannot read \(path)") }
            do {
                for certificate in try DSCTrustList.certificates(in: data) { list.add(certificate) }
            } catch {
                throw CommandFailure.usage("--dsc \(path): \(error)")
            }
        }
        return DCCVerifier(trustList: list)
    }

    /// `A=B` split at the last `=` that follows a URL (issuer URLs contain no `=`… but paths may).
    static func split(_ spec: String) -> (String, String)? {
        guard let eq = spec.firstIndex(of: "="), spec.hasPrefix("http") else { return nil }
        return (String(spec[..<eq]), String(spec[spec.index(after: eq)...]))
    }
}
