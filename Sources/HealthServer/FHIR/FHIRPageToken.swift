import ByteEncodings
import Crypto
import Foundation
import HealthVocabulary
import Synchronization

/// Where a paged search stands: the search, the snapshot anchor its first page was read at,
/// the offset of the next page and the total counted then.
struct FHIRPageState: Codable, Hashable, Sendable {
    let search: FHIRSearchRequest
    let snapshot: Int64
    let offset: Int
    let total: Int

    private enum CodingKeys: String, CodingKey {
        case search = "q", snapshot = "s", offset = "o", total = "n"
    }

    /// The JSON `JSONDecoder` reads back, written directly: Foundation's encoder took a tenth
    /// of a new search's time.
    var json: [UInt8] {
        let parameters = search.parameters.map { p in EncodedJSON.object([("name", .string(p.name)), ("value", .string(p.value))]) }
        let q = EncodedJSON.object([
            ("resourceType", .string(search.resourceType)), ("everything", .bool(search.everything)), ("parameters", .array(parameters)),
        ])
        return EncodedJSON.object([("q", q), ("s", .int(Int(snapshot))), ("o", .int(offset)), ("n", .int(total))]).bytes
    }
}

/// Seals page states into the opaque `_page` tokens of `next` links, and opens them.
///
/// A token is the state as JSON, sealed with ChaCha20-Poly1305 under a key derived (HKDF) from
/// the store's anchor secret and the app's id: it survives restarts, cannot be read (the
/// snapshot anchor would tell how many changes the app cannot see), and one altered, made up
/// or taken from another app does not open.
final class FHIRPageTokens: Sendable {
    private let secret: SymmetricKey
    private let keys = Mutex<[String: SymmetricKey]>([:])
    private let sealed = Mutex<[SealedPage: String]>([:])

    /// Makes the sealer over the store's anchor secret.
    init(anchorSecret: Data) { secret = SymmetricKey(data: anchorSecret) }

    private func key(appID: String) -> SymmetricKey {
        if let k = keys.withLock({ $0[appID] }) { return k }
        let k = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("healthrecords fhir page v1 ".utf8) + Data(appID.utf8), outputByteCount: 32)
        keys.withLock { $0[appID] = k }
        return k
    }

    /// The token for a state, for one app.
    func seal(_ state: FHIRPageState, appID: String) -> String {
        // An app polling the same search gets the same next page: seal it once. Any token for
        // the state opens the same, so a kept one is as good as a fresh one.
        let memo = SealedPage(appID: appID, state: state)
        if let token = sealed.withLock({ $0[memo] }) { return token }
        // Sealing in memory cannot fail.
        let box = try! ChaChaPoly.seal(state.json, using: key(appID: appID))
        let token = Base64URL.encode(box.combined)
        sealed.withLock { map in
            if map.count >= Self.sealedLimit { map.removeAll(keepingCapacity: true) }
            map[memo] = token
        }
        return token
    }

    private struct SealedPage: Hashable {
        let appID: String
        let state: FHIRPageState
    }

    private static let sealedLimit = 1024

    /// The state behind a token this app was given.
    ///
    /// - Throws: ``FHIRRequestError/invalidPageToken`` for anything else.
    func open(_ token: String, appID: String) throws(FHIRRequestError) -> FHIRPageState {
        guard token.utf8.count <= 8192, let bytes = try? Base64URL.decode(token), let box = try? ChaChaPoly.SealedBox(combined: Data(bytes)),
            let plain = try? ChaChaPoly.open(box, using: key(appID: appID)), let state = try? JSONDecoder().decode(FHIRPageState.self, from: plain),
            state.offset >= 0, state.snapshot >= 0, state.total >= 0
        else { throw .invalidPageToken }
        return state
    }
}
