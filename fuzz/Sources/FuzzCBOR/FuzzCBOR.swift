import CBOR
import DigitalCovidCertificates
import FHIR

/// The strict, bounded CBOR reader, the writer, and the CBOR → JSON view of a DCC payload.
///
/// Not a byte comparison: the reader takes indefinite lengths and non-preferred integer heads,
/// which the writer writes definite and shortest. So the check is on values —
/// decode(encode(v)) is v — and the writer's output is a fixed point (writing it again gives
/// the same bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let value = try? CBORReader.decode(input) else { return 0 }
    // The two entry points (bytes in an array, raw bytes) read alike.
    precondition((try? CBORReader.decode(Array(input))).map { same($0, value) } == true)
    let encoded = CBORWriter.encode(value)
    let again: CBORValue
    do { again = try CBORReader.decode(encoded) } catch { preconditionFailure("the writer's output does not read back: \(error)") }
    precondition(same(again, value), "decode(encode(v)) differs from v")
    precondition(CBORWriter.encode(again) == encoded, "the writer's output is not a fixed point")
    // The JSON view (what reports and records show) is always well-formed JSON.
    let json = JSONWriter.minified(value.json)
    do { _ = try JSONReader().read(json) } catch { preconditionFailure("CBORValue.json wrote invalid JSON: \(error)") }
    return 0
}

/// Structural equality that `==` cannot give: floats by bit pattern (NaN is not equal to itself
/// under `==`, and −0 equals +0), NaNs alike whatever their payload (half and single NaNs widen
/// to a double quiet NaN), and text by its UTF-8 bytes (String's `==` is canonical equivalence,
/// so "é" precomposed would equal "e" + combining accent).
func same(_ a: CBORValue, _ b: CBORValue) -> Bool {
    switch (a, b) {
    case (.float(let x), .float(let y)): return x.isNaN ? y.isNaN : x.bitPattern == y.bitPattern
    case (.text(let x), .text(let y)): return x.utf8.elementsEqual(y.utf8)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.map(let x), .map(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
    case (.tagged(let s, let x), .tagged(let t, let y)): return s == t && same(x, y)
    default: return a == b
    }
}
