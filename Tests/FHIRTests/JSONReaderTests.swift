import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct JSONReaderTests {
    let reader = JSONReader()

    @Test(arguments: ["1.50", "0.40", "6.0", "1e2", "-0", "1E+2", "0.000000000000000000001", "12345678901234567890123", "-1.5e-7"])
    func keepsNumberTextExactly(_ text: String) throws {
        let value = try reader.read("{\"v\":\(text)}")
        #expect(value["v"]?.numberValue?.text == text)
        #expect(JSONWriter.minifiedString(value) == "{\"v\":\(text)}")
    }

    @Test func minifiedOutputKeepsMemberOrderAndEscapes() throws {
        let text = #"{"z":1,"a":[true,false,null],"s":"tab\tquote\"slash\/é\u0001"}"#
        let value = try reader.read(text)
        #expect(value.objectValue?.keys == ["z", "a", "s"])
        #expect(JSONWriter.minifiedString(value) == #"{"z":1,"a":[true,false,null],"s":"tab\tquote\"slash/é\u0001"}"#)
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try reader.read(#""\ud83d\ude00""#).stringValue == "😀")
    }

    @Test(arguments: [
        (#"{"a":1,}"#, 7),
        (#"{"a" 1}"#, 5),
        (#"[1,2"#, 4),
        (#""abc"#, 4),
        (#"{"a":01}"#, 6),
        (#"[1.]"#, 1),
        (#"[.5]"#, 1),
        (#"[+1]"#, 1),
        (#"["\x"]"#, 2),
        (#"["\ud800"]"#, 2),
        (#"[tru]"#, 4),
        (#"{"a":1} x"#, 8),
        ("   ", 3),
        ("[\"a\u{01}\"]", 3),
    ])
    func reportsErrorsWithByteOffsets(_ input: String, _ offset: Int) {
        #expect { try reader.read(input) } throws: { error in
            (error as? JSONError)?.offset == offset
        }
    }

    @Test func rejectsByteOrderMark() {
        #expect(throws: JSONError(.byteOrderMark, at: 0)) { try reader.read(Data([0xEF, 0xBB, 0xBF, 0x7B, 0x7D])) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONError(.invalidString, at: 0)) { try reader.read(Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test func stopsTenThousandDeepArraysAtTheDepthLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONError(.tooDeep(limit: 128), at: 128)) { try reader.read(deep) }
    }

    @Test func enforcesStringDocumentAndContainerLimits() {
        let small = JSONReader(limits: JSONLimits(maxDocumentBytes: 100, maxDepth: 8, maxStringBytes: 4, maxContainerElements: 3))
        #expect(throws: JSONError(.stringTooLong(limit: 4), at: 0)) { try small.read(#""hello""#) }
        #expect(throws: JSONError(.stringTooLong(limit: 4), at: 0)) { try small.read(#""hel\nlo""#) }
        #expect(throws: JSONError(.tooManyElements(limit: 3), at: 8)) { try small.read("[1,2,3,4]") }
        #expect(throws: JSONError(.documentTooLarge(size: 101, limit: 100), at: 0)) {
            try small.read(String(repeating: " ", count: 101))
        }
    }

    /// Every shared FHIR JSON file reads the same as Foundation's parser reads it.
    @Test func agreesWithFoundationOnEverySharedFile() throws {
        let files = Corpus.files("data/fhir", extensions: ["json"])
        #expect(files.count > 300)
        for file in files {
            let data = try Data(contentsOf: file)
            let ours = try reader.read(data)
            let theirs = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            #expect(Self.same(ours, theirs), "\(file.lastPathComponent)")
        }
    }

    static func same(_ a: JSONValue, _ b: Any) -> Bool {
        switch a {
        case .null: return b is NSNull
        case .bool(let v): return (b as? NSNumber)?.boolValue == v
        case .number(let n): return (b as? NSNumber).map { abs($0.doubleValue - n.doubleValue) <= abs(n.doubleValue) * 1e-12 } ?? false
        case .string(let s): return (b as? String) == s
        case .array(let list):
            guard let other = b as? [Any], other.count == list.count else { return false }
            return zip(list, other).allSatisfy { same($0, $1) }
        case .object(let o):
            guard let other = b as? [String: Any], other.count == Set(o.keys).count else { return false }
            return o.members.allSatisfy { m in other[m.key].map { same(o[m.key]!, $0) } ?? false }
        }
    }
}
