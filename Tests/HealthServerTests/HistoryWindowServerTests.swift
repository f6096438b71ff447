import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import HummingbirdTesting
import Testing

/// History windows over HTTP: the person picks a 30-day window on the consent sheet, and on
/// every FHIR and app API path the app then reads the lab result dated an hour inside the
/// window and never the one an hour outside (nor the world's older results); the one outside
/// answers exactly as a missing one does. Earliest dates are given for the windowed type only.
@Suite struct HistoryWindowServerTests {
    static let types: Set<HealthDataType> = [.clinical(.labResult), .clinical(.condition), .context(.personalDetails), .context(.visits)]

    @Test(arguments: ServerEngine.plain)
    func aWindowChosenOnTheConsentSheetHoldsOnEveryPath(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine, decide: false)
        let w = f.world
        let since = w.now.addingTimeInterval(-30 * 86_400)
        try await w.importResources(
            [
                FHIRWorld.lab("lab-inside", date: InstantText.string(since.addingTimeInterval(3600))),
                FHIRWorld.lab("lab-outside", date: InstantText.string(since.addingTimeInterval(-3600))),
            ], source: "clinic")
        let app = try await w.register(Self.types, name: "Windowed")
        try await w.test { client in
            let token = try await client.token(app)
            // The person answers the sheet: labs and conditions for the past 30 days, details in
            // full (its own window), new data shared.
            let request = try await client.call(
                .post, "/authorization-requests", token: token, json: #"{"types":["lab-result","condition","personal-details","visits"]}"#
            ).object()
            let path = "/consent/\(request["id"] as! String)"
            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page(path, cookie: cookie)
            #expect(html.contains(#"name="history" value="30d""#) && html.contains(#"name="history-lab-result""#))
            // A window the sheet does not offer decides nothing.
            let bad = try await client.call(
                .post, path, form: "csrf=\(formEncoded(csrf))&allow=lab-result&history=forever&newData=share&action=allow", cookie: cookie)
            #expect(bad.status == .ok && bad.text.contains("Nothing was changed"))
            #expect(try await w.consent.grants(appID: app.appID).isEmpty)
            let form = "csrf=\(formEncoded(csrf))&allow=lab-result&allow=condition&allow=personal-details&allow=visits&history=30d"
                + "&history-personal-details=all&history-visits=&newData=share&action=allow"
            #expect(try await client.call(.post, path, form: form, cookie: cookie).status == .ok)
            let grants = Dictionary(uniqueKeysWithValues: try await w.consent.grants(appID: app.appID).map { ($0.type, $0.history) })
            #expect(grants == [
                .clinical(.labResult): .days(30)!, .clinical(.condition): .days(30)!, .context(.personalDetails): .all, .context(.visits): .days(30)!,
            ])

            // FHIR search: only the lab inside, total included.
            let labs = try await client.fhir("/fhir/Observation?category=laboratory", token: token)
            #expect(labs.status == .ok)
            #expect(labs.resources.map(FHIRAnswer.name) == ["lab-inside"])
            #expect(labs.json["total"] as? Int == 1)
            // …with a date that reaches back past the window, still only the one inside.
            let dated = try await client.fhir("/fhir/Observation?date=ge2000-01-01", token: token)
            #expect(dated.resources.map(FHIRAnswer.name) == ["lab-inside"])
            // Conditions (2018 and 2021) are all older than the window.
            #expect(try await client.fhir("/fhir/Condition", token: token).json["total"] as? Int == 0)

            // Read, history and vread: the one outside is not found, exactly as an unknown id.
            let inside = f.servedID("clinic", "Observation", "lab-inside")
            let outside = f.servedID("clinic", "Observation", "lab-outside")
            let unknown = String(repeating: "0", count: outside.count)
            #expect(try await client.fhir("/fhir/Observation/\(inside)", token: token).status == .ok)
            for suffix in ["", "/_history", "/_history/1"] {
                let hidden = try await client.fhir("/fhir/Observation/\(outside)\(suffix)", token: token)
                let missing = try await client.fhir("/fhir/Observation/\(unknown)\(suffix)", token: token)
                #expect(hidden.status == missing.status && hidden.status == .notFound, "\(suffix)")
                #expect(hidden.text.replacingOccurrences(of: outside, with: unknown) == missing.text, "\(suffix)")
            }

            // $everything: the lab inside, the Patient (all of history), the encounter (added
            // now); no older clinical record.
            let person = try await f.personID()
            let everything = try await client.pages("/fhir/Patient/\(person)/$everything", token: token)
            let names = everything.flatMap(\.resources).map(FHIRAnswer.name)
            #expect(names.contains("lab-inside") && names.contains("e1"))
            for old in ["lab-outside", "l1", "l2", "l3", "h1", "c1", "c2"] { #expect(!names.contains(old), "\(old)") }
            let summary = try await client.fhir("/fhir/Patient/\(person)/$summary", token: token)
            #expect(summary.status == .ok && !summary.text.contains("lab-outside") && !summary.text.contains(#""l2""#))

            // The app API's records and counts.
            let records = try await client.call(.get, "/records?type=lab-result", token: token).object()["records"] as? [[String: Any]] ?? []
            #expect(records.count == 1)

            // Earliest dates: the windowed types only; "all" and a type not asked look alike.
            let dates = try await client.call(.get, "/authorization/earliest-dates?types=lab-result,personal-details,condition", token: token).object()
            let byType = try #require(dates["earliestDates"] as? [String: Any])
            let lab = try #require(byType["lab-result"] as? String)
            let date = try Date(lab, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            // The window is the store's clock less 30 days, read a few imports (minutes) after `since` was.
            #expect(date.timeIntervalSince(since) >= 0 && date.timeIntervalSince(since) < 600, "\(lab)")
            #expect(byType["personal-details"] is NSNull)
            #expect(byType["condition"] as? String == lab)
            let parameters = try await client.fhir("/fhir/$earliest-dates?types=lab-result,personal-details", token: token)
            #expect(parameters.json["resourceType"] as? String == "Parameters")
            let parts = (parameters.json["parameter"] as? [[String: Any]] ?? []).compactMap { $0["part"] as? [[String: Any]] }
            #expect(parts.count == 1)
            #expect(parts.first?.first?["valueCode"] as? String == "lab-result")
            #expect(parts.first?.last?["valueInstant"] as? String == lab)
            #expect(try await client.fhir("/fhir/$earliest-dates?types=immunization", token: token).status == .badRequest)
        }
    }

    /// An app with no window, and one denied, get no earliest date: they look alike.
    @Test func earliestDatesLookTheSameForAllDeniedAndUndecided() async throws {
        let w = try await ServerWorld(.sqlite)
        let everything = try await w.allowedApp([.clinical(.labResult)])
        let denied = try await w.register([.clinical(.labResult)], name: "Denied")
        try await w.consent.decide(appID: denied.appID, AuthorizationDecision(allow: [], deny: [.clinical(.labResult)]))
        let undecided = try await w.register([.clinical(.labResult)], name: "Undecided")
        try await w.test { client in
            var answers: [String] = []
            for app in [everything, denied, undecided] {
                let token = try await client.token(app)
                answers.append(try await client.call(.get, "/authorization/earliest-dates?types=lab-result", token: token).text)
                answers.append(try await client.fhir("/fhir/$earliest-dates", token: token).text)
            }
            #expect(answers[0] == #"{"earliestDates":{"lab-result":null}}"#)
            #expect(answers[1] == #"{"resourceType":"Parameters"}"#)
            #expect(Set(answers.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)).count == 1)
            #expect(Set(answers.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)).count == 1)
        }
    }

    /// A share an app asks for reaches no further back than its reads: immunization cards dated
    /// before its immunization window are not offered; cards of a type it reads in full are.
    @Test func cardsAnAppAsksForReachNoFurtherBackThanItsWindow() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.saveCards()
        let app = try await w.register([.clinical(.immunization), .clinical(.labResult)], name: "Card reader")
        func offered(_ types: [String]) async throws -> Int {
            try await w.consent.offeredCards(for: VerifiableRecordRequest(appID: app.appID, recordTypes: types)).count
        }
        #expect(try await offered([Fixtures.immunizationCard]) == 2, "no grant: the person's pick alone")
        // The cards are dated 1,157 and 1,127 days before the world's clock.
        try await w.consent.decide(appID: app.appID, AuthorizationDecision(allow: [.clinical(.immunization)], history: .days(1150)!))
        #expect(try await offered([Fixtures.immunizationCard]) == 1)
        try await w.consent.decide(appID: app.appID, AuthorizationDecision(allow: [.clinical(.immunization)], history: .days(365)!))
        #expect(try await offered([Fixtures.immunizationCard]) == 0)
        #expect(try await offered([Fixtures.laboratoryCard]) == 1, "lab results are not windowed")
        try await w.consent.decide(appID: app.appID, AuthorizationDecision(allow: [.clinical(.immunization)], history: .days(1200)!))
        #expect(try await offered([Fixtures.immunizationCard]) == 2)
    }
}
