import ClinicalRecords
import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Logging
import ProviderSync
import TestSupport
import Testing

@testable import HealthServer

/// In a server for many people, a webhook post is a job in the shared sharing lane: while
/// other people's jobs hold every slot it waits, and it is posted once a slot frees.
@Suite struct SharingTurnsTests {
    @Test func aWebhookPostWaitsForATurnInTheSharingLane() async throws {
        let dir = TemporaryDirectory()
        let store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        let app = try await ConsentManager(store: store).register(
            name: "Tracker", purpose: "Charts your results", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)], requiredTypes: [],
            redirectURIs: ServerWorld.redirectURIs)
        let stored = try #require(await store.app(id: app.appID))
        let sender = RecordingWebhookSender(failing: 0)
        let turns = FairTurns(limit: 1)
        let delivery = Delivery(
            sender: sender, policy: WebhookPolicy(allowLoopback: true), store: store, pollInterval: .seconds(1),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), turns: turns, person: "ana")
        let registration = WebhookRegistration(
            id: "w1", appID: app.appID, url: URL(string: "https://app.example/hook")!, types: nil, created: Date(), revision: stored.accessRevision)

        // Ben's job holds the only slot until it is let go.
        let (release, released) = AsyncStream<Void>.makeStream()
        let (started, start) = AsyncStream<Void>.makeStream()
        let held = Task {
            await turns.run(for: "ben") {
                start.yield()
                for await _ in release { break }
            }
        }
        for await _ in started { break }
        let post = Task { await delivery.post(Data("{}".utf8), registration: registration) }
        while await turns.waitingCount < 1 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(sender.attempts.isEmpty, "posted while another person's job held the slot")
        released.yield()
        _ = await held.value
        #expect(await post.value)
        #expect(sender.attempts.map(\.url.absoluteString) == ["https://app.example/hook"])
    }
}
