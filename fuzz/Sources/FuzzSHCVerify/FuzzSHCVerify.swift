import CardScanning
import Dispatch
import FHIR
import Foundation
import JOSE
import QRCode
import SmartHealthCards

/// The whole SMART Health Card verify path — the card-input reader, then the verifier — with an
/// offline key set (the spec issuer's keys and revocation list, embedded so the target needs no
/// files).
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

/// Tight image bounds: FuzzPNG and FuzzQRDecode cover the decoders; here images are one more input kind.
let limits = CardInputReader.Limits(maxCardsPerInput: 16, png: PNGDecoder.Limits(maxWidth: 512, maxHeight: 512, maxPixels: 1 << 18, maxDecompressedBytes: 1 << 20))

final class Box: @unchecked Sendable { var report: CardVerification? }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    // Revocation lists come from issuers over the network: the same bytes as one (rid rules included).
    _ = try? RevocationList(data: bytes)
    let readings = CardInputReader.read([(bytes, "fuzz")], limits: limits)
    // Every input accounts for itself: a card or a typed reason there is none.
    precondition(!readings.isEmpty)
    var cards = readings.map(\.card)
    // Bytes that look like no card still go to the JWS parser: it must refuse them, never crash.
    if readings.allSatisfy({ $0.error != nil }) { cards.append(HealthCardInput.Card(jws: String(decoding: bytes, as: UTF8.self), origin: "fuzz")) }
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
