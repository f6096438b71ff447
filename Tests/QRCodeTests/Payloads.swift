import TestSupport
@testable import QRCode

/// Deterministic payloads that fill a given version at a given level, in a mode chosen
/// by the caller, so each sample needs exactly that version.
enum Payloads {
    enum Kind: CaseIterable { case numeric, alphanumeric, byte }

    static func segments(version: Int, level: QRErrorCorrectionLevel, kind: Kind, seed: UInt64) throws -> [QRSegment] {
        let v = QRVersion(version)!
        var rng = SplitMix64(state: seed)
        let capacity = v.dataCodewordCount(level: level) * 8
        switch kind {
        case .numeric:
            let available = capacity - 4 - QRMode.numeric.characterCountBits(version: v)
            var n = available / 10 * 3
            let rest = available % 10
            n += rest >= 7 ? 2 : (rest >= 4 ? 1 : 0)
            return [try .numeric(String((0..<n).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }))]
        case .alphanumeric:
            let available = capacity - 4 - QRMode.alphanumeric.characterCountBits(version: v)
            let n = available / 11 * 2 + (available % 11 >= 6 ? 1 : 0)
            let charset = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
            return [try .alphanumeric(String((0..<n).map { _ in charset[Int.random(in: 0..<45, using: &rng)] }))]
        case .byte:
            let n = (capacity - 4 - QRMode.byte.characterCountBits(version: v)) / 8
            // Printable ASCII so the text is the bytes whatever the reader's charset guess.
            return [.bytes((0..<n).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) })]
        }
    }

    static func text(_ segments: [QRSegment]) -> String {
        segments.map { String(decoding: $0.data, as: UTF8.self) }.joined()
    }
}
