import FHIR
import Foundation
import Testing

/// An object read in place on its tape gives what its parsed tree gives, member by member.
@Suite struct TapeObjectTests {
    func both(_ json: String) throws -> (TapeObject, JSONObject) {
        let tape = try JSONTape(Array(json.utf8))
        return (try #require(TapeObject(tape, tape.root)), try #require(tape.object(tape.root)))
    }

    @Test func membersAreFoundByTheirDecodedName() throws {
        let (o, tree) = try both(#"{"a":1,"c\u006fde":"escaped","code":"plain","":"empty","caf\u00e9":"e","café":"f","longer-than-eight-bytes":"x","longer-than-eight-byteZ":"y"}"#)
        for key in ["code", "", "café", "longer-than-eight-bytes", "longer-than-eight-byteZ", "cod", "codes", "a", "missing"] {
            #expect(o.string(key) == tree.string(key), "\(key)")
        }
        #expect(o.string("code") == "escaped")
        #expect(o.string("café") == "e")
        #expect(o.value("a").map { o.tape.kind($0) } == .number)
        #expect(TapeObject(o.tape, o.value("a")!) == nil)
    }

    @Test(arguments: [
        #"{"v":{"coding":[{"system":"s","version":"1","code":"c","display":"d","userSelected":true}],"text":"t"}}"#,
        #"{"v":{"coding":{"code":12.50,"userSelected":"false"}}}"#,
        #"{"v":{"coding":[null,1,{"code":false,"userSelected":"yes"}],"text":7}}"#,
        #"{"v":{"coding":"x"}}"#,
        #"{"v":[{"text":"a"},null,{"text":"b"}]}"#,
        #"{"v":null}"#,
        #"{"v":"text"}"#,
        #"{"v":{"reference":"Patient/1","type":"Patient","display":"P"}}"#,
        #"{"v":{"start":"2020-01","end":"not a date"}}"#,
        #"{"v":[]}"#,
        #"{}"#,
    ])
    func dataTypesReadAsOnTheTree(_ json: String) throws {
        let (o, tree) = try both(json)
        #expect(o.codeableConcept("v") == tree.codeableConcept("v"))
        #expect(o.codeableConcepts("v") == tree.codeableConcepts("v"))
        #expect(o.reference("v") == tree.reference("v"))
        #expect(o.period("v") == tree.period("v"))
        #expect(o.date("v") == tree.date("v"))
        #expect(o.string("v") == tree.string("v"))
        #expect(o.objects("v").map { o.tape.byteRange($0.token) } == tree.objects("v").map { $0.sourceRange! })
        #expect(o.firstObject("v").map { o.tape.byteRange($0.token) } == tree.firstObject("v")?.sourceRange)
        #expect(o.object("v").map { o.tape.byteRange($0.token) } == tree.object("v")?.sourceRange)
    }
}
