/// Keeps a resource's exact bytes on one NDJSON line.
///
/// A resource stored from a pretty-printed Bundle holds line breaks. In JSON a raw CR or LF can
/// only be whitespace between tokens (inside strings they must be escaped), so replacing each
/// with a space keeps the line the same JSON, the same length, and valid FHIR NDJSON for any
/// other tool; the offsets of the replaced bytes, kept in the resource's meta line, put them
/// back, so import restores the stored bytes exactly.
public enum LineBreaks {
    /// The offsets of LF and CR bytes, and the bytes with each replaced by a space.
    public static func flatten(_ bytes: [UInt8]) -> (line: [UInt8], lf: [Int], cr: [Int]) {
        var line = bytes
        var lf: [Int] = []
        var cr: [Int] = []
        for i in line.indices {
            switch line[i] {
            case 0x0A: lf.append(i); line[i] = 0x20
            case 0x0D: cr.append(i); line[i] = 0x20
            default: continue
            }
        }
        return (line, lf, cr)
    }

    /// Puts the line breaks back; `nil` when an offset is out of range or not a space (the
    /// line and its meta do not belong together).
    public static func restore(_ line: [UInt8], lf: [Int], cr: [Int]) -> [UInt8]? {
        var bytes = line
        for (offsets, byte) in [(lf, UInt8(0x0A)), (cr, UInt8(0x0D))] {
            for i in offsets {
                guard i >= 0, i < bytes.count, bytes[i] == 0x20 else { return nil }
                bytes[i] = byte
            }
        }
        return bytes
    }
}
