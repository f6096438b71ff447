import ByteEncodings

extension RevocationList.Entry {
    /// Reads one `rids` entry: 1–24 base64url characters, optionally `.` and whole seconds.
    ///
    /// Only the first `.` separates the timestamp, so `abc.1.5` is a bad timestamp rather than
    /// a rid with a fraction: the spec's timestamps are NumericDate seconds without one.
    init(listed text: String) throws(RevocationListError.RIDProblem) {
        let bytes = Array(text.utf8)
        let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        let rid = bytes[..<(dot ?? bytes.count)]
        guard !rid.isEmpty else { throw .empty }
        if let bad = rid.firstIndex(where: { !Base64URL.isAlphabetByte($0) }) { throw .notBase64URL(offset: bad) }
        guard rid.count <= 24 else { throw .tooLong(length: rid.count) }
        var timestamp: Double? = nil
        if let dot {
            let digits = bytes[(dot + 1)...]
            let text = String(decoding: digits, as: UTF8.self)
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let t = Double(text), t.isFinite else { throw .timestamp(text) }
            timestamp = t
        }
        self.init(rid: String(decoding: rid, as: UTF8.self), timestamp: timestamp)
    }
}
