import Testing

@testable import HealthServer
@testable import ProviderSync

/// The provider page's line about the last sync says what it left out (review finding 2).
@Suite struct ProviderResultTextTests {
    @Test func theLastSyncLineCountsWhatWasLeftOut() {
        var report = SyncReport(id: "clinic", source: "provider:clinic", mode: "full", status: "connected")
        report.fetched = 20
        report.inserted = 12
        #expect(ProviderRoutes.result(report) == "20 downloaded, 12 new, 0 changed")
        report.leftOut = 8
        #expect(ProviderRoutes.result(report) == "20 downloaded, 12 new, 0 changed, 8 left out as not yours")
    }
}
