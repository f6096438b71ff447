/// An object on a ``JSONTape``, read in place: looking a member up compares key bytes, and
/// only the values asked for become Swift values (strings, codings), never a tree. Reading a
/// few members of each entry of a large page this way costs a fraction of making the entries.
public struct TapeObject: FHIRObjectReading, Sendable {
    /// The tape the object is on.
    public let tape: JSONTape
    /// The object's token.
    public let token: Int

    /// The object at `token`; `nil` when that value is not an object.
    public init?(_ tape: JSONTape, _ token: Int) {
        guard tape.kind(token) == .object else { return nil }
        self.tape = tape
        self.token = token
    }

    /// The token of the first member named `key`.
    public func value(_ key: String) -> Int? { tape.member(token, named: key) }

    public func string(_ key: String) -> String? { value(key).flatMap { tape.string($0) } }

    public func date(_ key: String) -> FHIRDate? { string(key).flatMap(FHIRDate.init) }

    public func codeableConcept(_ key: String) -> CodeableConcept? { value(key).flatMap { CodeableConcept(tape: tape, at: $0) } }

    public func codeableConcepts(_ key: String) -> [CodeableConcept] {
        guard let v = value(key) else { return [] }
        switch tape.kind(v) {
        case .array:
            var out: [CodeableConcept] = []
            tape.forEachElement(v) { e in if let c = CodeableConcept(tape: tape, at: e) { out.append(c) } }
            return out
        case .object: return CodeableConcept(tape: tape, at: v).map { [$0] } ?? []
        default: return []
        }
    }

    public func reference(_ key: String) -> Reference? { value(key).flatMap { Reference(tape: tape, at: $0) } }

    public func period(_ key: String) -> Period? { value(key).flatMap { Period(tape: tape, at: $0) } }

    public func object(_ key: String) -> TapeObject? { value(key).flatMap { TapeObject(tape, $0) } }

    public func objects(_ key: String) -> [TapeObject] {
        guard let v = value(key) else { return [] }
        guard tape.kind(v) == .array else { return TapeObject(tape, v).map { [$0] } ?? [] }
        var out: [TapeObject] = []
        tape.forEachElement(v) { e in if let o = TapeObject(tape, e) { out.append(o) } }
        return out
    }

    public func firstObject(_ key: String) -> TapeObject? {
        guard let v = value(key) else { return nil }
        guard tape.kind(v) == .array else { return TapeObject(tape, v) }
        guard tape.next(v) > v + 1 else { return nil }
        return TapeObject(tape, v + 1)
    }
}

extension JSONTape {
    /// The member value of object `i` named `key` (the first one), if any, found by comparing
    /// key bytes (a key with escapes or non-ASCII bytes is decoded and compared as a `String`,
    /// with its canonical equivalence, as a tree's lookup would).
    public func member(_ i: Int, named key: String) -> Int? {
        guard tokens[i].kind == .object else { return nil }
        var name = key
        return name.withUTF8 { k in
            bytes.withUnsafeBufferPointer { b in
                tokens.withUnsafeBufferPointer { t in
                    let end = Int(t[i].next)
                    var m = i + 1
                    while m < end {
                        let token = t[m]
                        if token.flags != 0 {
                            if string(m) == key { return m + 1 }
                        } else if Int(token.end &- token.start) == k.count, Self.same(b.baseAddress! + Int(token.start), k) {
                            return m + 1
                        }
                        m = Int(t[m + 1].next)
                    }
                    return nil
                }
            }
        }
    }

    /// Whether the bytes at `a` are `b`'s (eight at a time: keys are short, a call to memcmp
    /// costs more than comparing them).
    @inline(__always) private static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let bp = b.baseAddress else { return true }
        let n = b.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(bp + i).loadUnaligned(as: UInt64.self) { return false }
            i += 8
        }
        while i < n {
            if a[i] != bp[i] { return false }
            i += 1
        }
        return true
    }
}

extension CodeableConcept {
    /// Reads a concept from a tape, as ``init(json:)`` reads one from a tree.
    public init?(tape: JSONTape, at i: Int) {
        guard let o = TapeObject(tape, i) else { return nil }
        coding = []
        if let c = o.value("coding") {
            switch tape.kind(c) {
            case .array: tape.forEachElement(c) { e in if let coding = Coding(tape: tape, at: e) { self.coding.append(coding) } }
            case .object: coding = Coding(tape: tape, at: c).map { [$0] } ?? []
            default: break
            }
        }
        text = o.string("text")
    }
}

extension Coding {
    /// Reads a coding from a tape, as ``init(json:)`` reads one from a tree.
    public init?(tape: JSONTape, at i: Int) {
        guard let o = TapeObject(tape, i) else { return nil }
        system = o.string("system")
        version = o.string("version")
        let c = o.value("code")
        code = c.flatMap { tape.string($0) ?? tape.number($0)?.text }
        display = o.string("display")
        userSelected = o.value("userSelected").flatMap { v in
            switch tape.kind(v) {
            case .true: return true
            case .false: return false
            case .string:
                switch tape.string(v) {
                case "true": return true
                case "false": return false
                default: return nil
                }
            default: return nil
            }
        }
    }
}

extension Reference {
    /// Reads a reference from a tape, as ``init(json:)`` reads one from a tree.
    public init?(tape: JSONTape, at i: Int) {
        guard let o = TapeObject(tape, i) else { return nil }
        reference = o.string("reference")
        type = o.string("type")
        display = o.string("display")
    }
}

extension Period {
    /// Reads a period from a tape, as ``init(json:)`` reads one from a tree.
    public init?(tape: JSONTape, at i: Int) {
        guard let o = TapeObject(tape, i) else { return nil }
        start = o.date("start")
        end = o.date("end")
    }
}
