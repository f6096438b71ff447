import ClinicalRecords
import Crypto
import FHIR
import Foundation
import JOSE
import VerifiableRecords

/// Verifies SMART Health Cards strictly, with a reason for every failure.
///
/// The order of checks follows the spec's verifier algorithm: the JWS form and header, the
/// payload (raw DEFLATE, claims), the issuer URL and trust, the issuer's keys, the signature,
/// time, the key's certificate chain, revocation, and finally the FHIR bundle.
public struct SmartHealthCardVerifier: Sendable {
    /// Tunable checks.
    public struct Options: Sendable {
        /// How far in the future `nbf` may be before the card is "not yet valid".
        public var clockSkew: TimeInterval = 300
        /// The cap on the inflated payload.
        public var inflateLimit: Int = RawDeflate.defaultLimit
        /// Accept `http://127.0.0.1…` issuers (tests with a local issuer server only).
        public var allowLoopbackIssuers = false
        /// Check the FHIR bundle: required elements, empty elements, references, minimization.
        /// Turned off, a card whose bundle is not valid FHIR can verify; only for measuring the
        /// other steps.
        public var checkFHIR = true

        /// Default options: 5 minutes of clock skew, the default inflate cap, no loopback issuers, FHIR checked.
        public init() {}
    }

    /// Where issuer keys and revocation lists come from.
    public let keys: any IssuerKeySource
    /// Which issuers are trusted.
    public let trust: TrustPolicy
    /// How `x5c` chains are checked.
    public let x5c: X5CValidator
    /// Tunable checks: clock skew, the inflate cap, loopback issuers, and whether the FHIR bundle is checked.
    public let options: Options
    private let names: DisplayNameResolver

    /// Makes a verifier; by default it trusts every issuer whose keys resolve and has no roots for `x5c` chains.
    public init(keys: any IssuerKeySource, trust: TrustPolicy = .open, x5c: X5CValidator = X5CValidator(), options: Options = Options(), tables: CodeTables = .shipped) {
        self.keys = keys
        self.trust = trust
        self.x5c = x5c
        self.options = options
        self.names = DisplayNameResolver(tables: tables)
    }

    /// Verifies a card found in some input.
    public func verify(_ card: HealthCardInput.Card, at time: Date) async -> CardVerification {
        var run = Run(origin: card.origin, jws: card.jws)
        run.warnings += card.warnings
        if let problem = card.inputError {
            run.fail(problem.code == .inputNoCard ? "input" : card.fromQR ? "QR text" : "card container", problem)
            return run.report
        }
        await verify(&run, at: time)
        return run.report
    }

    /// Verifies JWS text.
    public func verify(jws: String, at time: Date) async -> CardVerification {
        var run = Run(origin: "jws", jws: jws)
        await verify(&run, at: time)
        return run.report
    }

    /// The state of one verification.
    struct Run {
        let origin: String
        let jws: String
        var errors: [VerificationIssue] = []
        var warnings: [VerificationIssue] = []
        var checks: [CardVerification.Check] = []
        var payload: HealthCardPayload?
        var record: VerifiableClinicalRecord?
        var trust: TrustPolicy.Decision?

        init(origin: String, jws: String) {
            self.origin = origin
            self.jws = jws
            checks.reserveCapacity(12)
        }

        mutating func pass(_ name: String, _ detail: String? = nil) {
            checks.append(.init(name: name, passed: true, detail: detail))
        }

        mutating func fail(_ name: String, _ issue: VerificationIssue) {
            errors.append(issue)
            checks.append(.init(name: name, passed: false, detail: issue.message))
        }

        mutating func skip(_ name: String, _ why: String) {
            checks.append(.init(name: name, passed: nil, detail: why))
        }

        var report: CardVerification {
            CardVerification(origin: origin, jws: jws, payload: payload, record: record, errors: errors, warnings: warnings, checks: checks, trust: trust)
        }
    }

    private func verify(_ run: inout Run, at time: Date) async {
        // 1. The compact form.
        let jws: CompactJWS
        do {
            jws = try CompactJWS(run.jws)
            run.pass("JWS compact form")
        } catch {
            switch error {
            case .trailingCharacters: run.fail("JWS compact form", VerificationIssue(.jwsTrailingCharacters, error.description))
            case .malformed: run.fail("JWS compact form", VerificationIssue(.jwsMalformed, error.description))
            }
            return
        }
        // 2. The header.
        let header = jws.header
        var headerOK = true
        if header.algorithm != "ES256" {
            run.fail("header alg", VerificationIssue(.jwsHeaderAlg, "alg is \(header.algorithm.map { "\"\($0)\"" } ?? "missing"), not \"ES256\""))
            headerOK = false
        }
        if header.compression != "DEF" {
            run.fail("header zip", VerificationIssue(.jwsHeaderZip, "zip is \(header.compression.map { "\"\($0)\"" } ?? "missing"), not \"DEF\""))
            headerOK = false
        }
        if header.keyID == nil || header.keyID?.isEmpty == true {
            run.fail("header kid", VerificationIssue(.jwsHeaderKid, "the header has no kid"))
            headerOK = false
        }
        if headerOK { run.pass("header alg ES256, zip DEF, kid") }
        // 3. The signature's form.
        var signatureForm = true
        if jws.signature.count != 64 {
            signatureForm = false
            let der = jws.signature.first == 0x30 && (68...72).contains(jws.signature.count)
            run.fail("signature form", VerificationIssue(
                .signatureFormat,
                der ? "the signature is DER-encoded (\(jws.signature.count) bytes); ES256 in JWS needs the 64-byte r‖s form"
                    : "the signature is \(jws.signature.count) bytes; ES256 needs 64 (r‖s)"))
        }
        // 4. The payload.
        let inflated: [UInt8]
        do {
            inflated = try jws.payload.withUnsafeBufferPointer { (p) throws(RawDeflate.InflateError) -> [UInt8] in try RawDeflate.inflate(p, limit: options.inflateLimit) }
            run.pass("payload raw DEFLATE")
        } catch {
            let wrapped: String
            if jws.payload.count >= 2, jws.payload[0] == 0x78, (UInt16(jws.payload[0]) << 8 | UInt16(jws.payload[1])) % 31 == 0 {
                wrapped = "the payload is zlib-wrapped (RFC 1950); SMART Health Cards need raw DEFLATE (RFC 1951)"
            } else if jws.payload.count >= 2, jws.payload[0] == 0x1F, jws.payload[1] == 0x8B {
                wrapped = "the payload is gzip-wrapped; SMART Health Cards need raw DEFLATE (RFC 1951)"
            } else if jws.payload.first == UInt8(ascii: "{") {
                wrapped = "the payload is not compressed although the header says zip DEF"
            } else {
                wrapped = error.description
            }
            run.fail("payload raw DEFLATE", VerificationIssue(.payloadInflate, wrapped))
            return
        }
        let payload: HealthCardPayload
        do {
            payload = try HealthCardPayload(bytes: inflated, warnings: &run.warnings)
            run.payload = payload
            run.pass("payload claims")
        } catch {
            run.fail("payload claims", error.issue)
            return
        }
        // 5. The issuer URL and trust.
        let issuerURL = checkIssuerURL(payload.issuer)
        if let problem = issuerURL { run.fail("issuer URL", VerificationIssue(.issuerURL, problem)) } else { run.pass("issuer URL") }
        let decision = trust.decision(for: payload.issuer)
        run.trust = decision
        switch decision {
        case .trusted(let name): run.pass("issuer trusted", name)
        case .untrusted: run.warnings.append(VerificationIssue(.issuerUntrusted, "\(payload.issuer) is not in the trusted issuers"))
        case .open: run.warnings.append(VerificationIssue(.issuerTrustPolicy, "no trust policy given: the issuer is trusted because its keys resolve"))
        }
        // 6. Time.
        checkTime(payload, at: time, &run)
        // 7. Keys and signature.
        var key: JSONWebKey? = nil
        if issuerURL == nil || options.allowLoopbackIssuers, let kid = header.keyID {
            key = await resolveKey(issuer: payload.issuer, kid: kid, &run)
        } else {
            run.skip("issuer keys", "the issuer URL is not valid")
        }
        if let key, (try? key.p256PublicKey()) != nil {
            if !headerOK || !signatureForm {
                run.skip("signature", "the header or signature form is wrong")
            } else if jws.text.utf8.withContiguousStorageIfAvailable({
                key.isValidES256Signature(jws.signature, for: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[0..<jws.signingInputLength]))
            }) ?? Array(jws.signingInput).withUnsafeBytes({ key.isValidES256Signature(jws.signature, for: $0) }) {
                run.pass("ES256 signature")
            } else {
                run.fail("ES256 signature", VerificationIssue(.signatureInvalid, "the signature does not verify with key \(header.keyID ?? "")"))
            }
            // 8. The key's certificate chain.
            if let chain = key.certificateChain {
                let report = await x5c.validate(chain: chain, key: key, issuer: payload.issuer, at: time)
                for e in report.errors { run.fail("x5c chain", VerificationIssue(.keyX5C, e)) }
                for w in report.warnings { run.warnings.append(VerificationIssue(.keyX5C, w)) }
                if report.errors.isEmpty { run.pass("x5c chain") }
            }
            // 9. Revocation.
            if let crlVersion = key.crlVersion {
                await checkRevocation(payload, key: key, kid: header.keyID ?? "", crlVersion: crlVersion, &run)
            }
        }
        // 10. The bundle.
        if options.checkFHIR {
            let (errors, warnings) = CardBundleChecks.check(payload.tape, bundle: payload.bundleToken)
            for e in errors { run.fail("FHIR bundle", e) }
            run.warnings += warnings
            if errors.isEmpty { run.pass("FHIR bundle") }
        }
        run.record = VerifiableClinicalRecord(payload: payload, jws: run.jws, names: names)
    }

    /// Why an `iss` is not acceptable, or `nil`: https, a host, no trailing slash, compared as is.
    func checkIssuerURL(_ iss: String) -> String? {
        var copy = iss
        let problem: String? = copy.withUTF8 { u in
            if u.last == 0x2F { return "ends with /" }
            let https = "https://".utf8
            let http = "http://".utf8
            let schemeEnd: Int
            if u.starts(with: https) { schemeEnd = https.count } else if u.starts(with: http) { schemeEnd = http.count } else { return "does not use https" }
            // A host, then an optional path; no spaces, controls, non-ASCII, userinfo, query or fragment.
            var hostEnd = u.count
            for k in 0..<u.count {
                let c = u[k]
                if c <= 0x20 || c >= 0x7F || c == 0x40 || c == 0x3F || c == 0x23 || c == 0x5C { return "is not a URL" }
                if k >= schemeEnd, c == 0x2F, hostEnd == u.count { hostEnd = k }
            }
            if hostEnd == schemeEnd { return "has no host" }
            if schemeEnd == https.count { return nil }
            let host = String(decoding: u[schemeEnd..<hostEnd], as: UTF8.self)
            let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }) + "]" : String(host.prefix { $0 != ":" })
            if options.allowLoopbackIssuers, name == "127.0.0.1" || name == "localhost" || name == "[::1]" { return nil }
            return "does not use https"
        }
        return problem.map { "iss \(iss) \($0)" }
    }

    private func checkTime(_ p: HealthCardPayload, at time: Date, _ run: inout Run) {
        let now = time.timeIntervalSince1970
        // A year-2021 date in milliseconds is about 1.6e12; in seconds it would be year 52,000.
        let msThreshold = 1e11
        var ok = true
        if p.notBefore > msThreshold {
            run.fail("time", VerificationIssue(.timeUnits, "nbf \(p.notBefore) looks like milliseconds; NumericDate is in seconds"))
            ok = false
        } else if p.notBefore > now + options.clockSkew {
            run.fail("time", VerificationIssue(.timeNotYetValid, "nbf \(Self.iso(p.notBefore)) is after the verification time \(Self.iso(now))"))
            ok = false
        }
        if let exp = p.expiration {
            if exp > msThreshold {
                run.fail("time", VerificationIssue(.timeUnits, "exp \(exp) looks like milliseconds; NumericDate is in seconds"))
                ok = false
            } else {
                if exp <= p.notBefore {
                    run.fail("time", VerificationIssue(.payloadClaims, "exp is not after nbf"))
                    ok = false
                }
                if exp < now {
                    run.fail("time", VerificationIssue(.timeExpired, "the card expired at \(Self.iso(exp))"))
                    ok = false
                }
            }
        }
        if ok { run.pass(p.expiration == nil ? "time (nbf)" : "time (nbf, exp)") }
    }

    private func resolveKey(issuer: String, kid: String, _ run: inout Run) async -> JSONWebKey? {
        let set: JWKSet?
        do { set = try await keys.keySet(issuer: issuer) } catch {
            run.fail("issuer keys", VerificationIssue(.issuerKeysUnavailable, "keys of \(issuer) unavailable: \(error)"))
            return nil
        }
        guard let set else {
            run.fail("issuer keys", VerificationIssue(.issuerKeysUnavailable, "no keys known for \(issuer)"))
            return nil
        }
        var problems: [JWKError] = []
        var found = false
        for k in set.keys where k.keyID == kid {
            found = true
            let p = k.cachedSigningKeyProblems()
            if p.isEmpty {
                run.pass("issuer key", kid)
                return k
            }
            problems += p
        }
        guard found else {
            run.fail("issuer keys", VerificationIssue(.keyNotFound, "key \(kid) is not in \(issuer)'s key set"))
            return nil
        }
        run.fail("issuer keys", VerificationIssue(.keyInvalid, "key \(kid): " + problems.map(\.description).joined(separator: "; ")))
        return nil
    }

    private func checkRevocation(_ p: HealthCardPayload, key: JSONWebKey, kid: String, crlVersion: Int, _ run: inout Run) async {
        let list: RevocationList?
        do {
            if let caching = keys as? CachingKeySource {
                list = try await caching.revocationList(issuer: p.issuer, keyID: kid, atLeast: crlVersion)
            } else {
                list = try await keys.revocationList(issuer: p.issuer, keyID: kid)
            }
        } catch {
            if case .invalidRevocationList(_, let refused) = error, refused.code != .revocationUnavailable {
                run.fail("revocation", VerificationIssue(refused.code, "the revocation list for key \(kid) is refused: \(error)"))
            } else {
                run.fail("revocation", VerificationIssue(.revocationUnavailable, "the revocation list for key \(kid) is unavailable: \(error)"))
            }
            return
        }
        guard let list else {
            run.fail("revocation", VerificationIssue(.revocationUnavailable, "key \(kid) has crlVersion \(crlVersion) but no revocation list was found"))
            return
        }
        let problems = list.problems(keyID: kid, crlVersion: crlVersion)
        if !problems.isEmpty {
            run.fail("revocation", VerificationIssue(.revocationList, problems.joined(separator: "; ")))
            return
        }
        guard let rid = p.revocationID else {
            run.pass("revocation", "the card has no rid")
            return
        }
        if list.revokes(rid: rid, notBefore: p.notBefore) {
            run.fail("revocation", VerificationIssue(.revoked, "the card's rid \(rid) is revoked by the issuer"))
        } else {
            run.pass("revocation", "list ctr \(list.counter)")
        }
    }

    static func iso(_ seconds: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }
}
