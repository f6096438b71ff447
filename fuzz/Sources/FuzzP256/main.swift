import Crypto
import JOSE

// Differential: the precomputed-key ECDSA check must agree with swift-crypto's on every input.
// Byte 0 picks one of four keys, byte 1 how the signature is made, the rest is the message.
let keys: [P256.Signing.PrivateKey] = (1...4).map { i in
    try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: UInt8(i), count: 32))
}
let prepared = keys.map { PrecomputedP256Key($0.publicKey) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let which = Int(bytes[0] & 3)
    let mode = bytes[1]
    var message = Array(bytes.dropFirst(2))
    var signature: [UInt8]
    switch mode & 3 {
    case 0:  // a real signature: both must accept it
        signature = Array(try! keys[which].signature(for: message).rawRepresentation)
        precondition(prepared[which].isValidSignature(signature, for: message))
    case 1:  // a real signature with one bit flipped
        signature = Array(try! keys[which].signature(for: message).rawRepresentation)
        signature[Int(mode >> 2)] ^= 1 << ((message.first ?? 0) & 7)
    case 2:  // r‖s straight from the input (edge values: zero, n, n−1, all ones …)
        signature = Array(message.prefix(64))
        message = Array(message.dropFirst(64))
    default:  // a real r with s from the input, or the other way round
        let real = Array(try! keys[which].signature(for: message).rawRepresentation)
        let chosen = Array((message + [UInt8](repeating: 0, count: 32)).prefix(32))
        signature = mode & 4 == 0 ? Array(real[..<32]) + chosen : chosen + Array(real[32...])
    }
    let ours = prepared[which].isValidSignature(signature, for: message)
    let theirs = ES256.isValid(signature: signature, message: message, key: keys[which].publicKey)
    precondition(ours == theirs, "precomputed key says \(ours), swift-crypto says \(theirs)")
    return 0
}
