/// The order in which a scan codes blocks (T.81 A.2): MCU by MCU for an interleaved scan,
/// block by block over the component's own extent for a single-component one, with a
/// restart marker after every `restartInterval` MCUs.
enum JPEGScanWalker {
    /// Calls `visit(member, blockX, blockY, &reader)` for every block of the scan in coding order,
    /// handles restart markers (calling `onRestart` so predictions reset) and checks after each
    /// MCU that the data has not run out.
    @inline(__always)
    static func walk(
        _ scan: JPEGScanHeader, frame: JPEGFrame, restartInterval: Int, reader: inout JPEGBitReader,
        onRestart: () -> Void,
        visit: (_ member: Int, _ blockX: Int, _ blockY: Int, _ reader: inout JPEGBitReader) throws(JPEGError) -> Void
    ) throws(JPEGError) {
        var mcu = 0
        var restarts = 0
        @inline(__always) func beginMCU(_ reader: inout JPEGBitReader) throws(JPEGError) {
            if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                try reader.restart(expected: restarts & 7)
                restarts += 1
                onRestart()
            }
            mcu += 1
        }
        if scan.members.count == 1 {
            let component = frame.components[scan.members[0].component]
            for blockY in 0..<component.blocksHigh {
                for blockX in 0..<component.blocksWide {
                    try beginMCU(&reader)
                    do { try visit(0, blockX, blockY, &reader) } catch { throw reader.explain(error) }
                    try reader.checkOverrun()
                }
            }
            return
        }
        let shapes = scan.members.map { (h: frame.components[$0.component].h, v: frame.components[$0.component].v) }
        for mcuY in 0..<frame.mcusHigh {
            for mcuX in 0..<frame.mcusWide {
                try beginMCU(&reader)
                for (member, shape) in shapes.enumerated() {
                    for v in 0..<shape.v {
                        for h in 0..<shape.h {
                            do {
                                try visit(member, mcuX * shape.h + h, mcuY * shape.v + v, &reader)
                            } catch {
                                throw reader.explain(error)
                            }
                        }
                    }
                }
                try reader.checkOverrun()
            }
        }
    }
}
