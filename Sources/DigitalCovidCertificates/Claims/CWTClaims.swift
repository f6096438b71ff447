import CBOR
import Foundation

/// The CBOR Web Token claims of an HCERT (RFC 8392; the eHN HCERT specification §2.6).
public struct CWTClaims: Sendable, Hashable {
    /// Claim keys.
    public enum Key {
        /// `iss`: the issuing country (ISO 3166-1 alpha-2).
        public static let issuer: Int64 = 1
        /// `exp`: expiry, seconds since 1970.
        public static let expiration: Int64 = 4
        /// `iat`: issued at, seconds since 1970.
        public static let issuedAt: Int64 = 6
        /// `hcert`: the health certificate container; its key 1 holds the EU DCC.
        public static let healthCertificate: Int64 = -260
    }

    /// `iss`, when present.
    public let issuer: String?
    /// `iat`.
    public let issuedAt: Date
    /// `exp`.
    public let expiration: Date
    /// The EU DCC payload: `hcert` / 1.
    public let certificate: CBORValue

    /// Reads the claims of a CWT payload.
    public init(cbor bytes: [UInt8]) throws(DCCClaimsError) {
        let value: CBORValue
        do { value = try CBORReader.decode(bytes) } catch { throw .cbor(error) }
        try self.init(value)
    }

    /// Reads the claims of a decoded CWT.
    public init(_ value: CBORValue) throws(DCCClaimsError) {
        guard value.mapEntries != nil else { throw .claims("the CWT is not a map") }
        if let iss = value[Key.issuer] {
            guard let text = iss.text else { throw .claims("iss (1) is not text") }
            issuer = text
        } else {
            issuer = nil
        }
        issuedAt = try Self.time(value, Key.issuedAt, "iat (6)")
        expiration = try Self.time(value, Key.expiration, "exp (4)")
        guard let hcert = value[Key.healthCertificate] else { throw .claims("no hcert claim (-260)") }
        guard let container = hcert.mapEntries else { throw .claims("hcert (-260) is not a map") }
        guard container.count == 1, let dcc = hcert[1] else { throw .claims("hcert (-260) must hold exactly one entry, under key 1") }
        guard dcc.mapEntries != nil else { throw .claims("hcert (-260) / 1 is not a map") }
        certificate = dcc
    }

    /// Makes claims (for issuing).
    public init(issuer: String?, issuedAt: Date, expiration: Date, certificate: CBORValue) {
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.expiration = expiration
        self.certificate = certificate
    }

    /// The CWT as CBOR: `iss`, `iat`, `exp`, `hcert` in that order.
    public var encoded: [UInt8] {
        var entries: [CBORMapEntry] = []
        if let issuer { entries.append(CBORMapEntry(.integer(Key.issuer), .text(issuer))) }
        entries.append(CBORMapEntry(.integer(Key.issuedAt), .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))))
        entries.append(CBORMapEntry(.integer(Key.expiration), .integer(Int64(expiration.timeIntervalSince1970.rounded(.down)))))
        entries.append(CBORMapEntry(.integer(Key.healthCertificate), .map([CBORMapEntry(.unsigned(1), certificate)])))
        return CBORWriter.encode(.map(entries))
    }

    /// A NumericDate claim: an integer, or a float as RFC 8392 allows.
    static func time(_ value: CBORValue, _ key: Int64, _ name: String) throws(DCCClaimsError) -> Date {
        guard let v = value[key] else { throw .claims("no \(name)") }
        if let n = v.int64 { return Date(timeIntervalSince1970: TimeInterval(n)) }
        if case .float(let d) = v, d.isFinite { return Date(timeIntervalSince1970: d) }
        throw .claims("\(name) is not a number")
    }
}

/// Why a COSE payload is not the claims of an HCERT.
public enum DCCClaimsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is not well-formed CBOR.
    case cbor(CBORError)
    /// Well-formed, but a claim is missing or mistyped.
    case claims(String)

    public var description: String {
        switch self {
        case .cbor(let e): return "the CWT payload: \(e)"
        case .claims(let s): return s
        }
    }
}
