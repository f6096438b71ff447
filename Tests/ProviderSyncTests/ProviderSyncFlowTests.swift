import ClinicalRecords
import Foundation
import HealthStoreCore
import Testing
import TestSupport

@testable import ProviderSync

/// `ProviderSyncer` end to end: a scripted FHIR provider over real loopback HTTP, a real SQLite
/// store, and the connection as `providers add` and a sign-in leave it.
@Suite struct ProviderSyncFlowTests {
    /// Conditions and Observations across several pages (two entries a page).
    static func paged() -> ScriptedProvider.Configuration {
        var c = ScriptedProvider.Configuration()
        c.searches = [
            "Condition": (1...3).map { ServedResource.condition("cond-\($0)") },
            "Observation": (1...5).map { ServedResource.observation("obs-\($0)") },
        ]
        return c
    }

    /// How many pages a provider answers `count` entries in.
    static func pages(_ count: Int, _ configuration: ScriptedProvider.Configuration) -> Int {
        max(1, (count + configuration.pageSize - 1) / configuration.pageSize)
    }

    /// The first sync reads the CapabilityStatement, searches only the types it lists, follows
    /// every `next` link once, stores every page under the provider's source, takes the
    /// organization's name, and clears its checkpoint at the end.
    @Test func aFirstSyncDiscoversTheProviderAndStoresEveryPage() async throws {
        let configuration = Self.paged()
        let world = try await SyncWorld(configuration)
        let tokens = try await world.addSignedInConnection()
        let report = await world.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(report.mode == "full" && report.status == "connected" && !report.resumed)

        let expected = Set(world.provider.allResources.map(\.key))
        #expect(try await world.stored() == expected)
        #expect(report.fetched == expected.count)
        #expect(report.inserted == expected.count, "every resource is new, the Patient included")
        #expect(report.leftOut == 0 && report.deleted == 0)

        // One search per listed type, each page fetched once, every data request with the token.
        let data = ScriptedProvider.dataRequests(world.provider.log)
        var wanted = ["Patient/" + configuration.patient]
        for (type, list) in configuration.searches {
            wanted += (1...Self.pages(list.count, configuration)).map { "\(type) page \($0)" }
        }
        #expect(data.map(\.label).sorted() == wanted.sorted())
        #expect(data.allSatisfy { $0.bearer == tokens.access && $0.status == 200 })
        #expect(data.filter { $0.label.hasSuffix("page 1") }.allSatisfy { $0.query["patient"] == configuration.patient })
        #expect(world.provider.count("metadata") >= 1)

        let steps = Dictionary(uniqueKeysWithValues: report.types.map { ($0.type, [$0.pages, $0.resources]) })
        #expect(steps["Patient"] == [1, 1])
        for (type, list) in configuration.searches {
            #expect(steps[type] == [Self.pages(list.count, configuration), list.count], "\(type)")
        }

        // The organization's name, learned from the CapabilityStatement, names the source.
        let connection = try #require(try await world.connection())
        #expect(connection.name == configuration.publisher)
        #expect(try await world.store.sources().contains(RecordSource(identifier: connection.sourceIdentifier, name: configuration.publisher)))
        #expect(connection.lastFullSync != nil && connection.lastSync != nil && connection.syncedSince != nil)
        #expect(try await world.checkpointData() == nil, "a finished sync leaves no checkpoint")
    }

    /// The next sync asks each search only for what changed since the last one (less the
    /// overlap), and a page stored again changes nothing.
    @Test func aSecondSyncAsksOnlyForChanges() async throws {
        let world = try await SyncWorld(Self.paged())
        try await world.addSignedInConnection()
        #expect(await world.sync().error == nil)
        let before = world.provider.log.count
        let first = try #require(try await world.connection())

        let report = await world.sync()
        #expect(report.error == nil)
        #expect(report.mode == "incremental")
        #expect(report.inserted == 0 && report.updated == 0 && report.deleted == 0, "the same bytes are left alone")
        let searches = ScriptedProvider.dataRequests(Array(world.provider.log[before...])).filter { $0.label.hasSuffix("page 1") }
        #expect(!searches.isEmpty)
        let since = try #require(first.syncedSince).addingTimeInterval(-SyncOptions().overlap)
        for search in searches {
            #expect(search.query["_lastUpdated"] == "gt" + DownloadStep.instant(since), "\(search.label)")
        }
        #expect(try await world.stored() == Set(world.provider.allResources.map(\.key)))
    }

    /// Where the provider offers `Patient/$everything`, one operation replaces the searches.
    @Test func everythingIsUsedWhereOffered() async throws {
        var configuration = Self.paged()
        configuration.offersEverything = true
        let world = try await SyncWorld(configuration)
        try await world.addSignedInConnection()
        let report = await world.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(report.types.map(\.type) == ["Patient", "$everything"])

        let everything = world.provider.allResources.count
        let labels = ScriptedProvider.dataRequests(world.provider.log).map(\.label)
        #expect(labels.sorted() == (["Patient/" + configuration.patient] + (1...Self.pages(everything, configuration)).map { "$everything page \($0)" }).sorted())
        #expect(try await world.stored() == Set(world.provider.allResources.map(\.key)))
        #expect(report.deleted == 0, "the Patient seen twice is still one resource")
    }

    /// An access token past its expiry is refreshed before any request (never sent), once even
    /// with four searches asking at the same time; the rotated refresh token is kept. With no
    /// `.well-known/smart-configuration`, the token endpoint comes from the CapabilityStatement.
    @Test(arguments: [true, false])
    func anExpiredTokenIsRefreshedOnceAndTheNewTokensKept(wellKnown: Bool) async throws {
        var configuration = Self.paged()
        configuration.wellKnown = wellKnown
        let world = try await SyncWorld(configuration)
        let old = try await world.addSignedInConnection(expires: Date().addingTimeInterval(-60))
        world.provider.expire(old.access)

        let report = await world.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(world.provider.count("token refresh_token") == 1)
        let fresh = try #require(world.provider.issued.last)
        #expect(fresh != old)
        let data = ScriptedProvider.dataRequests(world.provider.log)
        #expect(!data.isEmpty && data.allSatisfy { $0.bearer == fresh.access && $0.status == 200 }, "the expired token was never sent")
        if !wellKnown {
            #expect(world.provider.log.contains { $0.label == "smart-configuration" && $0.status == 404 })
        }

        let connection = try #require(try await world.connection())
        #expect(connection.tokens?.accessToken == fresh.access)
        #expect(connection.tokens?.refreshToken == fresh.refresh, "the rotated refresh token is saved; the spent one would be refused")
        #expect((connection.tokens?.expires ?? .distantPast) > Date())
        #expect(connection.status == .connected)
        #expect(try await world.stored() == Set(world.provider.allResources.map(\.key)))
    }

    /// A token the provider refuses (401) though it has not expired is renewed once, and the
    /// refused requests are sent again with the new one.
    @Test func aRefusedTokenIsRenewedAndTheRequestsRepeated() async throws {
        let world = try await SyncWorld(Self.paged())
        let old = try await world.addSignedInConnection(expires: nil)
        world.provider.expire(old.access)

        let report = await world.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(world.provider.count("token refresh_token") == 1)
        let fresh = try #require(world.provider.issued.last)
        let data = ScriptedProvider.dataRequests(world.provider.log)
        let refused = data.filter { $0.status == 401 }
        #expect(!refused.isEmpty && refused.allSatisfy { $0.bearer == old.access })
        #expect(data.filter { $0.status == 200 }.allSatisfy { $0.bearer == fresh.access })
        for label in Set(refused.map(\.label)) {
            #expect(data.contains { $0.label == label && $0.status == 200 }, "\(label) was asked again")
        }
        #expect(try await world.stored() == Set(world.provider.allResources.map(\.key)))
        #expect(try await world.connection()?.tokens?.accessToken == fresh.access)
    }

    /// When the provider refuses the refresh token too (access revoked), the connection needs
    /// the person to sign in again, and nothing downloaded before is deleted.
    @Test func aRefusedRefreshAsksThePersonToSignInAgainAndKeepsTheRecords() async throws {
        let world = try await SyncWorld(Self.paged())
        try await world.addSignedInConnection()
        #expect(await world.sync().error == nil)
        let before = try await world.stored()
        #expect(!before.isEmpty)

        world.provider.revokeEverything()
        var connection = try #require(try await world.connection())
        connection.tokens?.expires = Date().addingTimeInterval(-1)
        connection.tokens?.refreshAt = nil
        try await world.store.saveProvider(connection)
        let logged = world.provider.log.count

        let report = await world.sync()
        #expect(report.error?.code == ProviderSyncError.needsSignIn(provider: "", reason: "").code)
        #expect(report.status == ProviderConnection.Status.needsSignIn.rawValue)
        let after = Array(world.provider.log[logged...])
        #expect(after.contains { $0.label == "token refresh_token" && $0.status == 400 })
        #expect(ScriptedProvider.dataRequests(after).isEmpty, "no request went out without a token")
        let stored = try #require(try await world.connection())
        #expect(stored.status == .needsSignIn && stored.statusDetail != nil)
        #expect(try await world.stored() == before)
    }

    /// A sync that fails on page 3 keeps what it stored and where it was; the next sync
    /// continues at page 3 without fetching the finished searches or pages 1 and 2 again, and
    /// its report speaks for the whole download.
    @Test func anInterruptedSyncResumesFromItsCheckpoint() async throws {
        var configuration = ScriptedProvider.Configuration()
        configuration.searches = [
            "Condition": (1...2).map { ServedResource.condition("cond-\($0)") },
            "Observation": (1...7).map { ServedResource.observation("obs-\($0)") },
        ]
        let world = try await SyncWorld(configuration)
        try await world.addSignedInConnection()
        world.provider.fail("Observation page 3", with: [503])
        var options = SyncOptions()
        options.concurrency = 1  // searches one after another, so the failure falls at a known point
        options.retry = RetryPolicy(maxAttempts: 1)

        let failed = await world.sync(options)
        #expect(failed.error?.code == ProviderSyncError.status(url: "", status: 503, detail: nil).code)
        let observations = configuration.searches["Observation"] ?? []
        let done = Set(
            [ServedResource.patient(configuration.patient, name: configuration.patientName).key] + (configuration.searches["Condition"] ?? []).map(\.key)
                + observations.prefix(2 * configuration.pageSize).map(\.key))
        #expect(try await world.stored() == done, "pages 1 and 2 are stored, page 3 is not")
        let saved = try #require(try await world.checkpoint())
        let step = try #require(saved.steps.first { $0.step.key == "Observation" })
        #expect(!step.done && step.pages == 2 && step.resources == 2 * configuration.pageSize)
        let next = try #require(step.next)
        let nextPage = URLComponents(url: next, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "page" })?.value
        #expect(nextPage == "3", "the next page to fetch is the one refused")

        let resumed = await world.sync(options)
        #expect(resumed.error == nil, "\(String(describing: resumed.error))")
        #expect(resumed.resumed && resumed.mode == "full")
        #expect(try await world.stored() == Set(world.provider.allResources.map(\.key)))
        #expect(try await world.checkpointData() == nil)
        #expect(resumed.deleted == 0, "what the first run saw counts as seen")
        let observationStep = try #require(resumed.types.first(where: { $0.type == "Observation" }))
        #expect(observationStep.pages == Self.pages(observations.count, configuration) && observationStep.resources == observations.count)

        // Across both runs: page 3 asked twice (refused, then resumed), everything else once.
        #expect(world.provider.count("Patient/" + configuration.patient) == 1)
        #expect(world.provider.count("Condition page 1") == 1)
        for page in 1...Self.pages(observations.count, configuration) {
            #expect(world.provider.count("Observation page \(page)") == (page == 3 ? 2 : 1), "page \(page)")
        }
    }

    /// A server that ignores `patient=` and answers other people's records: each way of naming
    /// someone else (another Patient, absolute or versioned, an identifier alone, a Group, a
    /// contained Patient, nobody) is left out, counted, and never stored.
    @Test(arguments: [false, true])
    func otherPatientsRecordsAreLeftOutAndCounted(everything: Bool) async throws {
        var configuration = ScriptedProvider.Configuration()
        configuration.offersEverything = everything
        configuration.searches = [
            "Observation": [
                .observation("own-1"),
                .observation("own-2", subject: #"{"reference":"Patient/p1/_history/2"}"#),
                .observation("other-1", subject: #"{"reference":"Patient/p2"}"#),
                .observation("other-2", subject: #"{"reference":"https://elsewhere.example/fhir/Patient/p2/_history/3"}"#),
                .observation("other-3", subject: #"{"identifier":{"system":"urn:mrn","value":"123"}}"#),
                .observation("other-4", subject: nil),
            ],
            "Condition": [
                .condition("own-3"),
                .condition("other-5", subject: #"{"reference":"Group/g1"}"#),
                .condition("other-6", subject: ##"{"reference":"#pat"}"##),
            ],
        ]
        // Only `$everything` answers resources of every type: there a foreign Patient too.
        configuration.everythingExtras = [.patient("p2", name: "Someone Else")]
        let world = try await SyncWorld(configuration)
        try await world.addSignedInConnection()

        let report = await world.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        let served = world.provider.allResources + (everything ? configuration.everythingExtras : [])
        let foreign = served.filter { $0.id.hasPrefix("other-") || $0.id == "p2" }
        #expect(!foreign.isEmpty)
        #expect(report.leftOut == foreign.count)
        let stored = try await world.stored()
        #expect(stored == Set(served.map(\.key)).subtracting(foreign.map(\.key)))
        #expect(stored.contains("Patient/" + configuration.patient))
    }

    /// A provider that does not know the connection fails the sync with a stable code.
    @Test func anUnknownProviderIsAReportedFailure() async throws {
        let world = try await SyncWorld(Self.paged())
        let report = await world.sync()
        #expect(report.error?.code == ProviderSyncError.unknownProvider("").code)
        #expect(world.provider.log.isEmpty, "nothing was asked of any provider")
    }

    /// A connection added but never signed in asks for a sign-in and fetches nothing.
    @Test func aConnectionNeverSignedInAsksForASignIn() async throws {
        let world = try await SyncWorld(Self.paged())
        try await world.addConnection()
        let report = await world.sync()
        #expect(report.error?.code == ProviderSyncError.needsSignIn(provider: "", reason: "").code)
        #expect(ScriptedProvider.dataRequests(world.provider.log).isEmpty)
        #expect(try await world.stored().isEmpty)
    }
}
