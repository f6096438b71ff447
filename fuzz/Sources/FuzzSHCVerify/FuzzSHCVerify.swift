import Dispatch
import FHIR
import Foundation
import JOSE
import SmartHealthCards

/// The whole SMART Health Card verify path with an offline key set (the spec issuer's keys and
/// revocation list, embedded so the target needs no files).
let issuer = "https://spec.smarthealth.cards/examples/issuer"
let keys = #"{"keys":[{"kty":"EC","kid":"3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s","use":"sig","alg":"ES256","crv":"P-256","x":"11XvRWy1I2S0EyJlyf_bWfw_TQ5CJJNLw78bHXNxcgw","y":"eZXwxvO1hvCY0KucrPfKo7yAyMT6Ajc3N7OkAB6VYy8","crlVersion":1}]}"#
let crl = #"{"kid":"3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s","method":"rid","ctr":1,"rids":["vwAjHdarZuc.1687450765","FKDIxsTCGlU"]}"#

let verifier: SmartHealthCardVerifier = {
    let set = try! JWKSet(data: Data(keys.utf8))
    let list = try! RevocationList(data: Data(crl.utf8))
    var options = SmartHealthCardVerifier.Options()
    options.inflateLimit = 1 << 20
    return SmartHealthCardVerifier(keys: StaticKeySource(keySets: [issuer: set], revocationLists: [issuer: [list.keyID: list]]), options: options)
}()

final class Box: @unchecked Sendable { var report: CardVerification? }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    // Revocation lists come from issuers over the network: the same bytes as one (rid rules included).
    _ = try? RevocationList(data: bytes)
    var cards: [HealthCardInput.Card] = []
    switch HealthCardInput.kind(of: bytes) {
    case .json: cards = (try? HealthCardInput.cards(json: bytes, origin: "fuzz")) ?? []
    case .qrText: if let c = try? HealthCardInput.card(qrTexts: [String(decoding: bytes, as: UTF8.self)], origin: "fuzz") { cards = [c] }
    // Bytes that look like no card still go to the JWS parser: it must refuse them, never crash.
    case .jws, .nothing: cards = [HealthCardInput.Card(jws: String(decoding: bytes, as: UTF8.self), origin: "fuzz")]
    }
    for card in cards.prefix(4) {
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.report = await verifier.verify(card, at: Date(timeIntervalSince1970: 1_688_169_600))
            done.signal()
        }
        done.wait()
        let report = box.report!
        // A card that fails a check must say why.
        precondition(report.isValid == report.errors.isEmpty)
        precondition(report.checks.contains { $0.passed == false } || report.errors.isEmpty)
    }
    return 0
}
