import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// One JSON log line per request, with the route pattern and no health data.
@Suite struct LoggingTests {
    @Test(arguments: ServerEngine.all)
    func logLinesAreJSONWithRoutesAndHoldNoHealthData(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "secret-lab-id", text: "HIV viral load"), Fixtures.patient], source: "Oncology Clinic")
        let creds = try await w.register([.clinical(.labResult)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        let token = try await w.test { client in
            let token = try await client.token(creds)
            _ = try await client.call(.get, "/records?type=lab-result&source=Oncology%20Clinic", token: token)
            _ = try await client.call(.get, "/records/Oncology%20Clinic/Observation/secret-lab-id", token: token)
            _ = try await client.call(.get, "/records/Oncology%20Clinic/Observation/missing", token: token)
            let cookie = try await client.signIn()
            _ = try await client.call(.get, "/", cookie: cookie)
            return token
        }
        let lines = w.logs.all
        #expect(lines.count >= 5)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] != nil && object?["message"] != nil)
            for secret in ["secret-lab-id", "HIV", "Oncology", "Robin", "1980-05-06", token, creds.secret, ServerWorld.personToken] {
                #expect(!line.contains(secret), "a log line holds \(secret): \(line)")
            }
        }
        #expect(lines.contains { $0.contains(#""route":"/records/{source}/{resourceType}/{id}""#) && $0.contains(#""status":"404""#) })
        #expect(lines.contains { $0.contains(#""app":"\#(creds.appID)""#) && $0.contains(#""route":"/records""#) })
    }
}
