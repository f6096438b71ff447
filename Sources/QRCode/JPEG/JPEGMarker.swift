/// JPEG marker codes (the byte after `FF`), ITU-T T.81 Table B.1, and what this decoder does with each.
enum JPEGMarker {
    static let soi: UInt8 = 0xD8
    static let eoi: UInt8 = 0xD9
    static let sos: UInt8 = 0xDA
    static let dqt: UInt8 = 0xDB
    static let dnl: UInt8 = 0xDC
    static let dri: UInt8 = 0xDD
    static let dht: UInt8 = 0xC4
    static let app1: UInt8 = 0xE1
    static let app14: UInt8 = 0xEE
    static let rst0: UInt8 = 0xD0
    static let tem: UInt8 = 0x01

    /// RST0…RST7: only meaningful inside entropy-coded data.
    static func isRestart(_ marker: UInt8) -> Bool { marker & 0xF8 == 0xD0 }

    /// What a start-of-frame style marker means for this decoder, or nil when `marker` is no SOF.
    static func frameKind(_ marker: UInt8) -> Result<JPEGFrame.Kind, JPEGProcessRefusal>? {
        switch marker {
        case 0xC0: return .success(.baseline)
        case 0xC1: return .success(.extendedSequential)
        case 0xC2: return .success(.progressive)
        case 0xC3: return .failure(.init(process: .lossless))
        case 0xC5, 0xC6, 0xC7, 0xDE, 0xDF: return .failure(.init(process: .hierarchical))  // SOF5–7, DHP, EXP
        case 0xC8: return .failure(.init(process: .extensions))
        case 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF: return .failure(.init(process: .arithmeticCoding))  // SOF9–15, DAC
        default: return nil
        }
    }
}

/// A process this decoder refuses, carried until the marker's offset is known.
struct JPEGProcessRefusal: Error {
    let process: JPEGProcess
}
