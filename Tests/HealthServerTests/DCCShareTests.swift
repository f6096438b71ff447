import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import SmartHealthCards
import Testing
import VerifiableRecords

/// EU DCCs are verifiable records like cards: on the person's cards pages, queried by record
/// type (and HealthKit's source types), shared one time only.
@Suite struct DCCShareTests {
    static let payload = #"""
        {"ver":"1.3.0","nam":{"fn":"Musterfrau","fnt":"MUSTERFRAU","gn":"Erika","gnt":"ERIKA"},"dob":"1964-08-12",
         "v":[{"tg":"840539006","vp":"1119349007","mp":"EU/1/20/1528","ma":"ORG-100030215","dn":2,"sd":2,"dt":"2021-05-29",
               "co":"DE","is":"Robert Koch-Institut","ci":"URN:UVCI:01DE/IZ12345A/5CWLU12RNOB9RXSEOP6FG8#W"}]}
        """#

    static func saveCertificate(_ w: ServerWorld) async throws {
        let day = Date(timeIntervalSince1970: 1_622_246_400)
        let record = VerifiableClinicalRecord(
            recordTypes: [Fixtures.immunizationCard, "https://smarthealth.cards#covid19"], issuerIdentifier: "DE",
            subject: .init(fullName: "Erika Musterfrau", dateOfBirth: FHIRDate("1964-08-12")), issuedDate: day, relevantDate: day,
            expirationDate: day.addingTimeInterval(86_400 * 365), itemNames: ["COVID-19 vaccination: Comirnaty, dose 2 of 2"],
            dataRepresentation: Data("HC1:NCFOXN%TSMAHN-H".utf8), fhirResourceTypes: [], sourceType: .euDigitalCOVIDCertificate,
            decodedPayload: try JSONReader().read(Data(payload.utf8)))
        _ = try await w.store.saveVerifiableRecords([(record, .verified(trusted: true))])
    }

    @Test(arguments: ServerEngine.all)
    func aCertificateIsOfferedByKindSharedOnceAndShownOnTheCardsPages(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.saveCards()
        try await Self.saveCertificate(w)
        let creds = try await w.register([.clinical(.immunization)], name: "Border")
        try await w.test { client in
            let token = try await client.token(creds)
            let body = #"{"recordTypes":["\#(Fixtures.immunizationCard)"],"sourceTypes":["EUDigitalCOVIDCertificate"]}"#
            let request = try await client.call(.post, "/verifiable-record-requests", token: token, json: body).object()
            let id = try #require(request["id"] as? String)
            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page("/share/\(id)", cookie: cookie)
            // Only the certificate: the immunization cards are SMART Health Cards.
            #expect(html.contains("Comirnaty") && !html.contains("Vaccine 1") && !html.contains("Vaccine 2"))
            let ids = html.ranges(of: #/name="card" value="([^"]+)"/#).map { String(html[$0].split(separator: "\"")[3]) }
            #expect(ids.count == 1)
            _ = try await client.call(.post, "/share/\(id)", form: "csrf=\(formEncoded(csrf))&card=\(ids[0])&action=share", cookie: cookie)
            let records = try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: token).object()["records"] as! [[String: Any]]
            #expect(records.count == 1)
            #expect(records.first?["sourceType"] as? String == "EUDigitalCOVIDCertificate")
            #expect(records.first?["dataRepresentation"] as? String == "HC1:NCFOXN%TSMAHN-H")
            #expect((records.first?["payload"] as? [String: Any])?["dob"] as? String == "1964-08-12")
            #expect(try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: token).status == .conflict)

            // Without sourceTypes, both kinds are offered; an unknown kind is a bad request.
            let any = try await client.call(.post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"]}"#).object()
            let (both, _) = try await client.page("/share/\(any["id"] as! String)", cookie: cookie)
            #expect(both.contains("Comirnaty") && both.contains("Vaccine 1"))
            let bad = #"{"recordTypes":["\#(Fixtures.immunizationCard)"],"sourceTypes":["Passport"]}"#
            #expect(try await client.call(.post, "/verifiable-record-requests", token: token, json: bad).status == .badRequest)

            let list = try await client.call(.get, "/cards", cookie: cookie).text
            #expect(list.contains("EU Digital COVID Certificate") && list.contains("SMART Health Card"))
            let detail = try await client.call(.get, "/cards/\(ids[0])", cookie: cookie).text
            #expect(detail.contains("Certificate identifier") && detail.contains("URN:UVCI:01DE/IZ12345A/5CWLU12RNOB9RXSEOP6FG8#W"))
            #expect(detail.contains("Doses in series"))
        }
    }
}
