import Deflate
import SmartHealthCards

/// Raw inflate with a cap: bounded output, typed errors, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    if let out = try? RawDeflate.inflate(input, limit: 1 << 20) {
        precondition(out.count <= 1 << 20)
        // What inflates must round-trip through our compressor, at a level the input picks.
        // Checked up to 64 KiB of output: `.best` on a megabyte per input would starve the
        // fuzzer, and the cap itself is what the large outputs test.
        if out.count <= 1 << 16 {
            let level = Compress.Level.allCases[Int(size > 0 ? data[0] : 0) % Compress.Level.allCases.count]
            precondition((try? RawDeflate.inflate(Compress.raw(out, level: level), limit: 1 << 20)) == out)
        }
    }
    return 0
}
