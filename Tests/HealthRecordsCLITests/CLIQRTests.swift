import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct CLIQRTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }
    let spec = FixtureFiles.url("vectors/shc-spec").path
    let iss = "https://spec.smarthealth.cards/examples/issuer"

    @Test(arguments: [0, 1, 3])
    func printsTheSpecQRTextByteForByte(_ n: Int) throws {
        let r = try cli.run(["qr", "text", "\(spec)/example-0\(n)-d-jws.txt"])
        #expect(r.status == 0)
        #expect(r.stdout == (try Data(contentsOf: URL(fileURLWithPath: "\(spec)/example-0\(n)-f-qr-code-numeric-value-0.txt"))))
    }

    @Test func drawsACardThatVerifiesAndImportsFromItsPicture() throws {
        let png = dir.path("card.png")
        let svg = dir.path("card.svg")
        #expect(try cli.run(["qr", "encode", "--shc", "\(spec)/example-00-d-jws.txt", "--png", png, "--module-size", "3"]).status == 0)
        #expect(try cli.run(["qr", "encode", "--shc", "\(spec)/example-00-d-jws.txt", "--svg", svg]).status == 0)
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<svg") || (try String(contentsOfFile: svg, encoding: .utf8)).contains("<svg"))
        let decoded = try JSONReader().read(try cli.run(["qr", "decode", png, "--json"]).stdout)
        #expect(decoded[0]?["version"]?.numberValue?.intValue == 18)
        #expect(decoded[0]?["segments"]?.arrayValue?.compactMap { $0["mode"]?.stringValue } == ["byte", "numeric"])
        let files = ["--issuer-files", "\(iss)=\(spec)/issuer", "--offline", "--at", "2023-07-01"]
        let verified = try cli.run(["verify", png, "--json"] + files)
        #expect(verified.status == 0, "\(verified.output)")
        let imported = try cli.run(["import", png, "--json"] + files)
        #expect(imported.status == 0, "\(imported.output)\(imported.stderr)")
        #expect(try JSONReader().read(imported.stdout)["inserted"]?.numberValue?.intValue == 1)
    }

    @Test func refusesBadModuleSizesAndMissingInputs() throws {
        #expect(try cli.run(["qr", "encode", "--text", "hi", "--png", dir.path("x.png"), "--module-size", "0"]).status == 2)
        #expect(try cli.run(["qr", "encode", "--text", "hi", "--png", dir.path("x.png"), "--module-size", "10000"]).status == 2)
        #expect(try cli.run(["qr", "encode", "--text", "hi"]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.path("x.png")))
        let notAnImage = try dir.write("note.png", "not a png")
        #expect(try cli.run(["qr", "decode", notAnImage]).status == 2)
    }
}
