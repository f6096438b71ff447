import FHIR
import Foundation
import SmartHealthCards
import Testing
import TestSupport
import X509

@Suite struct SpecExampleTests {
    @Test(arguments: [0, 1, 2])
    func verifiesSpecExamples(_ n: Int) async throws {
        let jws = try Spec.text("vectors/shc-spec/example-0\(n)-d-jws.txt")
        let report = await Spec.verifier().verify(jws: jws, at: Spec.afterSigning)
        #expect(report.isValid, "\(report.errors)")
        #expect(report.isTrusted)
        #expect(report.payload?.issuer == Spec.issuer)
        let minified = try FixtureFiles.data("vectors/shc-spec/example-0\(n)-c-jws-payload-minified.json")
        #expect(report.payload.map { Data($0.bytes) } == minified)
    }

    @Test func reportsExample03Revoked() async throws {
        let jws = try Spec.text("vectors/shc-spec/example-03-d-jws.txt")
        let report = await Spec.verifier().verify(jws: jws, at: Spec.afterSigning)
        #expect(report.errors.map(\.code) == [.revoked])
        // Later it is also expired.
        let later = await Spec.verifier().verify(jws: jws, at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(Set(later.errors.map(\.code)) == [.revoked, .timeExpired])
    }

    @Test(arguments: [0, 1, 2, 3])
    func verifiesTheHL7Examples(_ n: Int) async throws {
        let jws = try Spec.text("vectors/shc-hl7-ig/example-0\(n)-d-jws.txt")
        let report = await Spec.verifier().verify(jws: jws, at: Spec.afterHL7Signing)
        // HL7 example 03 carries the revoked rid but was issued after the CRL entry's timestamp.
        #expect(report.isValid, "\(report.errors)")
    }

    @Test(arguments: ["example-00_2021-05", "example-00_2021-09", "legacy-2021-03_reference_pdf_vaccine"])
    func verifiesThe2021Cards(_ name: String) async throws {
        let jws = try Spec.text("vectors/shc/spec-examples-2021/\(name).jws.txt")
        let report = await Spec.verifier().verify(jws: jws, at: Date(timeIntervalSince1970: 1_640_995_200))  // 2022-01-01
        #expect(report.isValid, "\(report.errors)")
        let qr = try Spec.text("vectors/shc/spec-examples-2021/\(name).qr.txt")
        #expect(try HealthCardQRText.assemble([qr]).jws == jws)
    }

    @Test func describesTheVerifiableRecord() async throws {
        let jws = try Spec.text("vectors/shc-spec/example-00-d-jws.txt")
        let record = try #require(await Spec.verifier().verify(jws: jws, at: Spec.afterSigning).record)
        #expect(record.issuerIdentifier == Spec.issuer)
        #expect(record.subject.fullName == "John B. Anyperson")
        #expect(record.subject.dateOfBirth?.text == "1951-01-20")
        #expect(record.recordTypes == ["https://smarthealth.cards#health-card", "https://smarthealth.cards#immunization"])
        #expect(record.itemNames.count == 3)
        #expect(record.itemNames.allSatisfy { $0.contains("COVID-19") })
        #expect(record.relevantDate == FHIRDate("2022-09-05")?.date)  // the latest of the three doses
        #expect(record.issuedDate == Date(timeIntervalSince1970: 1_687_450_764.656))
        #expect(record.expirationDate == nil)
        #expect(record.sourceType == .smartHealthCard)
        #expect(record.dataRepresentation == Data(jws.utf8))
    }

    @Test func readsSmartHealthCardFilesAndQRText() throws {
        for n in [0, 1, 3] {
            let file = try FixtureFiles.data("vectors/shc-spec/example-0\(n)-e-file.smart-health-card")
            let cards = try HealthCardContainer.jwsTexts(json: file)
            #expect(cards == [try Spec.text("vectors/shc-spec/example-0\(n)-d-jws.txt")])
            let qr = try Spec.text("vectors/shc-spec/example-0\(n)-f-qr-code-numeric-value-0.txt")
            #expect(try HealthCardQRText.assemble([qr]).jws == cards[0])
            #expect(HealthCardQRText.encode(jws: cards[0]) == qr)
        }
    }

    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func assemblesExample02ChunksInAnyOrder(_ order: [Int]) throws {
        let chunks = try order.map { try Spec.text("vectors/shc-spec/example-02-f-qr-code-numeric-value-\($0).txt") }
        let card = try HealthCardQRText.assemble(chunks)
        #expect(card.jws == (try Spec.text("vectors/shc-spec/example-02-d-jws.txt")))
        #expect(card.warnings.map(\.code).contains(.qrChunks))
    }

    @Test func readsHealthCardsIssueParameters() throws {
        let jws = try Spec.text("vectors/shc-spec/example-00-d-jws.txt")
        let parameters = #"{"resourceType":"Parameters","parameter":[{"name":"verifiableCredential","valueString":"\#(jws)"},{"name":"resourceLink","part":[]}]}"#
        #expect(try HealthCardContainer.jwsTexts(json: Data(parameters.utf8)) == [jws])
    }

    @Test func validatesExample01ChainAtItsTimeAndReportsItExpiredToday() async throws {
        let set = try Spec.jwks
        let key = try #require(set.keys(withID: Spec.kidX5C).first)
        let chain = try #require(key.certificateChain)
        let root = try Certificate(derEncoded: Array(Data(base64Encoded: chain.last!)!))
        let validator = X5CValidator(roots: [root])
        let then = await validator.validate(chain: chain, key: key, issuer: Spec.issuer, at: Spec.x5cValid)
        #expect(then.errors.isEmpty, "\(then.errors)")
        let today = await validator.validate(chain: chain, key: key, issuer: Spec.issuer, at: Date())
        #expect(today.errors.contains { $0.contains("expired") })
        // The whole card: with the root configured, an expired chain makes it invalid today…
        let jws = try Spec.text("vectors/shc-spec/example-01-d-jws.txt")
        let strict = await Spec.verifier(roots: [root]).verify(jws: jws, at: Date())
        #expect(strict.errors.map(\.code) == [.keyX5C])
        // …without a root, the chain is only described.
        let open = await Spec.verifier().verify(jws: jws, at: Date())
        #expect(open.isValid)
        #expect(open.warnings.contains { $0.code == .keyX5C && $0.message.contains("not valid") })
    }
}
