import Testing

@testable import HealthServer

/// A server for many people waits on one clock for every request's deadline: the front's and
/// each person's server share it, so a thousand people with requests in flight tick one clock,
/// not a thousand.
@Suite struct PeopleDeadlinesTests {
    @Test func everyPersonsServerSharesTheFrontsDeadlines() async throws {
        let w = try await PeopleWorld(.sqlite)
        let ana = try await w.server.people.server(w.ana)
        let ben = try await w.server.people.server(w.ben)
        #expect(ana.server.deadlines === w.server.deadlines)
        #expect(ben.server.deadlines === w.server.deadlines)
    }
}
