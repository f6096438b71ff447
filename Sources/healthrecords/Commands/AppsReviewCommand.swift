import ArgumentParser
import FHIR
import Foundation
import HealthStoreCore

/// `apps review`: the access review the person's pages show — every app that can read, what and
/// how far back, when it last read and what — with keep, narrow and the review settings.
struct AppsReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Review which apps can read: what, how far back, when they last read. Keep or narrow one; set how often to review.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Confirm this app's access as it is.", valueName: "app"))
    var keep: String?

    @Option(help: ArgumentHelp("Narrow how far back this app may read (with --history).", valueName: "app"))
    var narrow: String?

    @Option(help: ArgumentHelp("The window for --narrow: 30d, 90d, 1y or any <n>d/<n>y.", valueName: "window"))
    var history: HistoryWindow?

    @Option(help: ArgumentHelp("Review every this many days (7–3650; 90 by default).", valueName: "days"))
    var every: Int?

    @Option(help: ArgumentHelp("End access not kept within 30 days of its review falling due: on or off.", valueName: "on|off"))
    var expireUnconfirmed: Switch?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    enum Switch: String, ExpressibleByArgument { case on, off }

    func validate() throws {
        if narrow != nil, history == nil { throw ValidationError("--narrow needs --history") }
        if narrow == nil, history != nil { throw ValidationError("--history goes with --narrow") }
        if history == .all { throw ValidationError("narrow to a window: 30d, 90d, 1y…") }
        if let every, !AccessReviewSettings.intervalRange.contains(every) { throw ValidationError("--every is 7 to 3650 days") }
    }

    func run() async throws {
        let consent = try await storeOptions.consent()
        try await consentWork {
            if every != nil || expireUnconfirmed != nil {
                var settings = try await consent.reviewSettings()
                if let every { settings.intervalDays = every }
                if let expireUnconfirmed { settings.expireUnconfirmed = expireUnconfirmed == .on }
                try await consent.saveReviewSettings(settings)
            }
            if let keep { try await consent.keepAccess(appID: keep) }
            if let narrow, let history { try await consent.narrowHistory(appID: narrow, to: history) }
        }
        let ended = try await consent.endUnconfirmedAccess()
        let review = try await consent.accessReview()
        let settings = try await consent.reviewSettings()
        let now = consent.store.clock.now
        if json {
            JSONOutput.print(.object(JSONObject([
                "intervalDays": JSONOutput.int(settings.intervalDays), "expireUnconfirmed": .bool(settings.expireUnconfirmed),
                "ended": .array(ended.map(JSONValue.string)),
                "apps": .array(review.map { r in
                    var members: [(String, JSONValue)] = [
                        ("appId", .string(r.app.id)), ("name", .string(r.app.name)),
                        ("reads", .array(r.grants.map { g in
                            .object(JSONObject(["type": .string(g.type.name), "history": .string(g.history.text), "newData": .string(g.newData.rawValue)]))
                        })),
                        ("confirmed", JSONOutput.date(r.confirmed)), ("due", JSONOutput.date(r.due)), ("isDue", .bool(r.isDue(at: now))),
                        ("readSinceConfirmed", .array(r.readSinceConfirmed.map { .string($0.name) })),
                    ]
                    if let ends = r.ends { members.append(("ends", JSONOutput.date(ends))) }
                    if let last = r.lastRead {
                        members.append(("lastRead", .object(JSONObject(["date": JSONOutput.date(last.date), "operation": .string(last.operation), "count": JSONOutput.int(last.count)]))))
                    }
                    return .object(JSONObject(members.map { JSONMember($0.0, $0.1) }))
                }),
            ])))
            return
        }
        for id in ended { print("access of \(id) ended: not kept within \(AccessReviewSettings.graceDays) days of its review") }
        var table = TextTable("app", "name", "reads", "confirmed", "review", "last read", "read since")
        for r in review {
            table.add(
                r.app.id, r.app.name, r.grants.map { "\($0.type.name) (\($0.history.text))" }.joined(separator: ","),
                String(JSONOutput.iso8601(r.confirmed).prefix(10)), r.isDue(at: now) ? "due" : "on " + String(JSONOutput.iso8601(r.due).prefix(10)),
                r.lastRead.map { String(JSONOutput.iso8601($0.date).prefix(10)) + " " + $0.operation } ?? "never",
                r.readSinceConfirmed.map(\.name).joined(separator: ","))
        }
        print(table.rendered)
        print("review every \(settings.intervalDays) days; unconfirmed access \(settings.expireUnconfirmed ? "ends \(AccessReviewSettings.graceDays) days after its review is due" : "does not end by itself")")
    }
}
