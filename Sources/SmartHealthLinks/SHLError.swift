import ByteEncodings
import Deflate
import Foundation

/// Why a SMART Health Link, its manifest or one of its files was refused.
///
/// Every kind of failure has its case, with the context a person needs to see what is wrong;
/// ``code`` gives each a stable code (`shl.payload`, `shl.decrypt`…) to match on, never the
/// message. Codes never change meaning; new ones may be added.
public enum SHLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link text or its JSON payload is not a SMART Health Link: see the problem.
    case payload(PayloadProblem)
    /// The payload's `key` (or a key given by a caller) is not 32 bytes as 43 base64url characters.
    case key(KeyProblem)
    /// The payload's `v` is not a version this reader speaks (only 1). The label, which every
    /// version keeps, is carried so the receiver can still say which link it could not open.
    case unsupportedVersion(Int, label: String?)
    /// The payload's `exp` (seconds since 1970) is before the time it was checked at.
    case expired(expiration: Int64, checkedAt: Date)
    /// The server answered 404: the link is inactive, revoked, expired or was never there.
    case notFound(url: String)
    /// The link has the `P` flag and no passcode was given.
    case passcodeRequired
    /// The server answered 401: the passcode is wrong or missing. `remainingAttempts` is the
    /// server's count of tries left before it disables the link for good, when it said.
    case passcodeRejected(remainingAttempts: Int?)
    /// The server answered 429: a long-term link was polled too often. Wait `retryAfterSeconds`
    /// (the `Retry-After` header) before asking again, when the server said.
    case rateLimited(retryAfterSeconds: Int?)
    /// The server answered with a status this protocol gives no meaning to.
    case httpStatus(Int, url: String)
    /// A manifest request body (as a sharing server receives it) is not the spec's shape.
    case manifestRequest(ManifestRequestProblem)
    /// A manifest is not the spec's shape.
    case manifest(ManifestProblem)
    /// The file is not encrypted at all: a signed card's compact JWS, or plain JSON, where a
    /// JWE was due (the IG's own CARIN example serves a JWS behind a `U` link).
    case notEncrypted(PlainContent)
    /// The file is not a compact JWE this protocol allows: see the problem.
    case malformedJWE(JWEProblem)
    /// AES-256-GCM refused the file: a wrong key, or a header, IV, ciphertext or tag that was
    /// altered. Nothing of the plaintext is returned.
    case decryptionFailed
    /// The JWE's `cty` names another content type than the manifest said.
    case contentType(expected: String, found: String)
    /// The decrypted file says `zip: DEF` but is not a raw DEFLATE stream.
    case inflate(InflateError)
    /// The file's content would be larger than `limit` bytes (an inflate bomb, or a file too
    /// large for the caller); nothing beyond the limit was produced.
    case tooLarge(limit: Int)
    /// AES-256-GCM could not seal the file (a wrong IV length given to the reproducible form).
    case encryptionFailed

    /// What is wrong with a link's text or payload.
    public enum PayloadProblem: Sendable, Equatable, CustomStringConvertible {
        /// No `shlink:/` at the start, nor after a `#` (a viewer URL).
        case notALink
        /// More characters than a link may have; nothing of it was decoded.
        case tooLong(length: Int, limit: Int)
        /// The text after `shlink:/` is not base64url (`+` and `/` are not base64url).
        case notBase64URL(Base64URL.DecodingError)
        /// The decoded payload is not a JSON object.
        case notJSONObject
        /// A required member (`url`, `key`) is absent.
        case missing(member: String)
        /// A member has the wrong JSON type (`url`, `key`, `flag`, `label` not strings; `v` not
        /// an integer).
        case wrongType(member: String)
        /// `url` is the empty string.
        case emptyURL
        /// `url` is longer than the 128 characters the spec allows (refused when making a link).
        case urlTooLong(length: Int)
        /// `label` is longer than the 80 characters the spec allows (refused when making a link).
        case labelTooLong(length: Int)
        /// `exp` is before 1970 (refused when making a link).
        case negativeExpiration(Int64)
        /// The flags carry both `P` and `U`, which the spec forbids: a `U` file is fetched by a
        /// `GET` that has no place for a passcode.
        case passcodeWithDirectFile

        public var description: String {
            switch self {
            case .notALink: return "the text is not a SMART Health Link (no shlink:/ at its start or after a #)"
            case .tooLong(let length, let limit): return "the link is \(length) bytes long; at most \(limit) are read"
            case .notBase64URL(let error): return "the payload is not base64url: \(error)"
            case .notJSONObject: return "the payload is not a JSON object"
            case .missing(let member): return "the payload has no \(member)"
            case .wrongType(let member): return "the payload's \(member) has the wrong JSON type"
            case .emptyURL: return "the payload's url is empty"
            case .urlTooLong(let length): return "the url is \(length) characters long; at most 128 are allowed"
            case .labelTooLong(let length): return "the label is \(length) characters long; at most 80 are allowed"
            case .negativeExpiration(let exp): return "exp \(exp) is before 1970"
            case .passcodeWithDirectFile: return "the flags P and U cannot be used together"
            }
        }
    }

    /// What is wrong with a link's key.
    public enum KeyProblem: Sendable, Equatable, CustomStringConvertible {
        /// Not the 43 characters that 32 bytes take in base64url.
        case length(characters: Int)
        /// Not base64url (padding, `+`, `/`, whitespace, non-zero trailing bits).
        case notBase64URL(Base64URL.DecodingError)
        /// Raw key bytes given by a caller that are not 32 bytes.
        case byteCount(Int)

        public var description: String {
            switch self {
            case .length(let n): return "the key is \(n) characters long, not 43"
            case .notBase64URL(let error): return "the key is not base64url: \(error)"
            case .byteCount(let n): return "the key is \(n) bytes long, not 32"
            }
        }
    }

    /// What is wrong with a manifest request's body.
    public enum ManifestRequestProblem: Sendable, Equatable, CustomStringConvertible {
        /// Not a JSON object with a string `recipient` (and, when present, a string `passcode`
        /// and an integer `embeddedLengthMax`); `path` names the member, empty for the whole body.
        case malformed(path: String)
        /// `recipient` is the empty string.
        case emptyRecipient
        /// `embeddedLengthMax` is negative.
        case negativeEmbeddedLengthMax(Int)

        public var description: String {
            switch self {
            case .malformed(let path): return path.isEmpty ? "the manifest request is not a JSON object with a recipient" : "the manifest request's \(path) is missing or mistyped"
            case .emptyRecipient: return "the manifest request's recipient is empty"
            case .negativeEmbeddedLengthMax(let n): return "the manifest request's embeddedLengthMax \(n) is negative"
            }
        }
    }

    /// What is wrong with a manifest.
    public enum ManifestProblem: Sendable, Equatable, CustomStringConvertible {
        /// Not a JSON object whose `files` are objects with a string `contentType`; `path` names
        /// the member (`files[1].contentType`), empty for the whole document.
        case malformed(path: String)
        /// File `index` has neither `location` nor `embedded`.
        case fileWithoutContent(index: Int)
        /// File `index` embeds a JWE longer than the request's `embeddedLengthMax`.
        case embeddedTooLong(index: Int, length: Int, limit: Int)

        public var description: String {
            switch self {
            case .malformed(let path): return path.isEmpty ? "the manifest is not a JSON object" : "the manifest's \(path) is missing or mistyped"
            case .fileWithoutContent(let index): return "manifest file \(index) has neither location nor embedded"
            case let .embeddedTooLong(index, length, limit): return "manifest file \(index) embeds \(length) characters; the request allowed \(limit)"
            }
        }
    }

    /// What an unencrypted file looks like.
    public enum PlainContent: Sendable, Equatable, CustomStringConvertible {
        /// Three dot-separated parts: a compact JWS, such as a signed SMART Health Card.
        case compactJWS
        /// A JSON document.
        case json

        public var description: String {
            switch self {
            case .compactJWS: return "a compact JWS (three parts), such as a signed SMART Health Card"
            case .json: return "plain JSON"
            }
        }
    }

    /// One of the five parts of a compact JWE.
    public enum JWEPart: String, Sendable, Equatable, CustomStringConvertible {
        /// The protected header.
        case header
        /// The encrypted key (empty with `alg: dir`).
        case encryptedKey = "encrypted key"
        /// The 96-bit initialization vector.
        case iv = "initialization vector"
        /// The ciphertext.
        case ciphertext
        /// The 128-bit authentication tag.
        case tag = "authentication tag"

        /// The part's name as used in messages.
        public var description: String { rawValue }
    }

    /// What is wrong with a compact JWE.
    public enum JWEProblem: Sendable, Equatable, CustomStringConvertible {
        /// Not five dot-separated parts (three is ``SHLError/notEncrypted(_:)`` instead).
        case partCount(Int)
        /// A part is not strict base64url (no padding, no whitespace).
        case notBase64URL(JWEPart, Base64URL.DecodingError)
        /// The protected header is not a JSON object.
        case headerNotJSONObject
        /// A header member (`alg`, `enc`, `zip`, `cty`) is not a string.
        case memberType(String)
        /// `alg` is absent or not `dir`.
        case algorithm(String?)
        /// `enc` is absent or not `A256GCM`.
        case encryption(String?)
        /// `zip` is present and not `DEF`.
        case compression(String)
        /// The header has `crit`: extensions this reader cannot honour.
        case criticalHeader
        /// The encrypted key part is not empty, as `alg: dir` requires.
        case encryptedKeyNotEmpty(length: Int)
        /// The IV is not 12 bytes.
        case ivLength(Int)
        /// The tag is not 16 bytes.
        case tagLength(Int)

        public var description: String {
            switch self {
            case .partCount(let n): return "a compact JWE has five parts, not \(n)"
            case .notBase64URL(let part, let error): return "the \(part) is not base64url: \(error)"
            case .headerNotJSONObject: return "the protected header is not a JSON object"
            case .memberType(let name): return "the header's \(name) is not a string"
            case .algorithm(let alg): return "alg is " + Self.quotedOrAbsent(alg) + ", not \"dir\""
            case .encryption(let enc): return "enc is " + Self.quotedOrAbsent(enc) + ", not \"A256GCM\""
            case .compression(let zip): return "zip is \"\(zip)\", not \"DEF\""
            case .criticalHeader: return "the header lists critical extensions (crit)"
            case .encryptedKeyNotEmpty(let length): return "the encrypted key is \(length) characters; alg dir leaves it empty"
            case .ivLength(let n): return "the initialization vector is \(n) bytes, not 12"
            case .tagLength(let n): return "the authentication tag is \(n) bytes, not 16"
            }
        }

        private static func quotedOrAbsent(_ value: String?) -> String {
            guard let value else { return "absent" }
            return "\"" + value + "\""
        }
    }

    /// The stable code, e.g. `shl.decrypt`: what to match on, unlike ``description``.
    public var code: String {
        switch self {
        case .payload: return "shl.payload"
        case .key: return "shl.key"
        case .unsupportedVersion: return "shl.version"
        case .expired: return "shl.expired"
        case .notFound: return "shl.notFound"
        case .passcodeRequired, .passcodeRejected: return "shl.passcode"
        case .rateLimited: return "shl.rateLimited"
        case .httpStatus: return "shl.http"
        case .manifestRequest: return "shl.request"
        case .manifest: return "shl.manifest"
        case .notEncrypted: return "shl.notEncrypted"
        case .malformedJWE: return "shl.jwe"
        case .decryptionFailed: return "shl.decrypt"
        case .contentType: return "shl.contentType"
        case .inflate: return "shl.inflate"
        case .tooLarge: return "shl.tooLarge"
        case .encryptionFailed: return "shl.encrypt"
        }
    }

    /// What is wrong, for people.
    public var description: String {
        switch self {
        case .payload(let problem): return problem.description
        case .key(let problem): return problem.description
        case .unsupportedVersion(let v, let label):
            let named = label.map { "\"" + $0 + "\" " } ?? ""
            return "the link " + named + "uses SMART Health Links version \(v); this reader speaks version 1 only"
        case .expired(let exp, let at):
            return "the link expired at \(exp) (seconds since 1970), before \(Int64(at.timeIntervalSince1970.rounded(.down)))"
        case .notFound(let url): return "\(url) answered 404: the link is inactive, revoked or expired"
        case .passcodeRequired: return "the link needs a passcode (flag P) and none was given"
        case .passcodeRejected(let remaining):
            guard let remaining else { return "the passcode was refused" }
            return "the passcode was refused; \(remaining) attempt" + (remaining == 1 ? "" : "s") + " left"
        case .rateLimited(let seconds):
            guard let seconds else { return "the server asks for fewer requests" }
            return "the server asks for fewer requests; retry after \(seconds) s"
        case .httpStatus(let status, let url): return "\(url) answered HTTP \(status)"
        case .manifestRequest(let problem): return problem.description
        case .manifest(let problem): return problem.description
        case .notEncrypted(let kind): return "the file is not encrypted: it is \(kind), where a JWE (alg dir, enc A256GCM) was due"
        case .malformedJWE(let problem): return "not a SMART Health Link JWE: \(problem)"
        case .decryptionFailed: return "the file does not decrypt with the link's key (wrong key, or altered in transit)"
        case .contentType(let expected, let found): return "the file's cty is \(found); the manifest said \(expected)"
        case .inflate(let error): return "the decrypted file is not raw DEFLATE: \(error)"
        case .tooLarge(let limit): return "the file's content exceeds the limit of \(limit) bytes"
        case .encryptionFailed: return "the file could not be encrypted"
        }
    }
}
