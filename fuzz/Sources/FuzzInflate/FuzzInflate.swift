import SmartHealthCards

/// Raw inflate with a cap: bounded output, typed errors, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    if let out = try? RawDeflate.inflate(input, limit: 1 << 20) {
        precondition(out.count <= 1 << 20)
        // What inflates must round-trip through our deflate. Checked up to 64 KiB of output:
        // level-9 deflate of a megabyte per input would starve the fuzzer, and the cap itself is
        // what the large outputs test.
        if out.count <= 1 << 16 {
            precondition((try? RawDeflate.inflate(RawDeflate.deflate(out), limit: 1 << 20)) == out)
        }
    }
    return 0
}
