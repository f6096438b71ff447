import Foundation
import SmartHealthLinks

/// What a SMART Health Link receiver reads from outside, chosen by the first byte: the link text
/// (a bare `shlink:/` or a viewer URL), the payload's JSON, a file's compact JWE under a fixed key
/// (to the header, part and tag checks; zip or not), and a manifest or manifest request. Each
/// must refuse with its typed error or read; what reads must write back to what reads the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let text = String(decoding: bytes, as: UTF8.self)
    switch data[0] % 4 {
    case 0:
        if let link = try? SHLinkPayload(link: text) {
            let again = try? SHLinkPayload(link: link.link)
            precondition(again?.url == link.url && again?.key == link.key && again?.flags == link.flags && again?.label == link.label, "a link does not round-trip")
        }
    case 1:
        _ = try? SHLinkPayload(json: bytes)
    case 2:
        _ = try? SHLFileEncryption.decrypt(text, key: key, limit: 1 << 20)
    default:
        if let manifest = try? SHLManifest.decode(bytes), let written = try? JSONEncoder().encode(manifest) {
            precondition((try? SHLManifest.decode(written)) == manifest, "a manifest does not round-trip")
        }
        _ = try? SHLManifestRequest.decode(bytes)
    }
    return 0
}

/// The key of the spec's examples, so their JWEs reach the tag check.
private let key = try! SHLKey(base64url: "rxTgYlOaKJPFtcEd0qcceN8wEU4p94SqAwIWQe6uX7Q")
