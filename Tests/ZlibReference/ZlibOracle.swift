import CZlib
#if canImport(Glibc)
import Glibc
#endif

/// System zlib as the reference: it compresses test data, judges every stream we inflate, and
/// inflates every stream we compress, so our DEFLATE is checked against what peers run; the
/// benchmarks time `Deflate` against it.
public enum ZlibOracle {
    /// What zlib makes of a stream.
    public enum Outcome: Equatable, Sendable {
        case inflated([UInt8])
        case failed
    }

    /// Compresses with `deflateInit2` (windowBits −15 for raw DEFLATE, 15 for zlib).
    public static func compress(
        _ input: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION, windowBits: Int32 = -15,
        memLevel: Int32 = 8, strategy: Int32 = Z_DEFAULT_STRATEGY
    ) -> [UInt8] {
        var stream = z_stream()
        let r = deflateInit2_(&stream, level, Z_DEFLATED, windowBits, memLevel, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(r == Z_OK, "deflateInit2: \(r)")
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        var source = input
        let produced: Int = source.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = uInt(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                let status = deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate: \(status)")
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out[..<produced])
    }

    /// Raw (windowBits −15) or zlib (15) inflate of the whole input into at most `limit` bytes:
    /// success needs the stream to end, use every input byte, and fit.
    public static func inflate(_ input: [UInt8], limit: Int, windowBits: Int32 = -15) -> Outcome {
        var stream = z_stream()
        let r = inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(r == Z_OK, "inflateInit2: \(r)")
        defer { inflateEnd(&stream) }
        return inflate(input, limit: limit, with: &stream)
    }

    /// Raw inflate as `inflate(_:limit:windowBits:)`, with one stream per thread reset for each
    /// call instead of a new one: what a busy verifier written in C does, so the fair baseline
    /// for timing our inflater.
    public static func inflateReusingStream(_ input: [UInt8], limit: Int) -> Outcome {
        ThreadStream.current.inflate(input, limit: limit)
    }

    private static func inflate(_ input: [UInt8], limit: Int, with stream: inout z_stream) -> Outcome {
        // One byte more than the limit tells "exactly the limit" from "too much".
        var out = [UInt8](repeating: 0, count: limit + 1)
        var source = input
        let result: (Int32, Int, Int) = source.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = uInt(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                var status = Z_OK
                while status == Z_OK { status = CZlib.inflate(&stream, Z_NO_FLUSH) }
                return (status, o.count - Int(stream.avail_out), Int(stream.avail_in))
            }
        }
        let (status, produced, left) = result
        guard status == Z_STREAM_END, left == 0, produced <= limit else { return .failed }
        return .inflated(Array(out[..<produced]))
    }

    /// A raw inflate stream per thread: `inflateReset` costs far less than a new 32 KiB window.
    private final class ThreadStream {
        private var stream = z_stream()

        nonisolated(unsafe) private static var key: pthread_key_t = {
            var k = pthread_key_t()
            pthread_key_create(&k) { raw in
                guard let raw else { return }
                Unmanaged<ThreadStream>.fromOpaque(raw).release()
            }
            return k
        }()

        static var current: ThreadStream {
            if let raw = pthread_getspecific(key) { return Unmanaged<ThreadStream>.fromOpaque(raw).takeUnretainedValue() }
            let made = ThreadStream()
            pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
            return made
        }

        private init() {
            let r = inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            precondition(r == Z_OK, "inflateInit2: \(r)")
        }

        deinit { inflateEnd(&stream) }

        func inflate(_ input: [UInt8], limit: Int) -> Outcome {
            inflateReset(&stream)
            return ZlibOracle.inflate(input, limit: limit, with: &stream)
        }
    }
}
