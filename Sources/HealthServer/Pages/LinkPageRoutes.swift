import CardScanning
import Foundation
import HealthSharing
import HealthStoreCore
import Hummingbird
import PatientSummary
import QRCode
import SmartHealthLinks

/// The person's sharing pages: make a SMART Health Link (what goes in, with the summary's
/// sections and counts; the kind of link and its lifetime), see its QR code once, follow who
/// opened it, revoke it. The link's text is shown only in the answer that made it (and again
/// for a long-term link, whose key the store keeps sealed).
struct LinkPageRoutes {
    let store: any HealthStore
    let address: ServerAddress
    let pages: PersonPages
    /// The passcode hash's cost (tests make it cheap).
    let passcodeCost: KDFParameters

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/links") { _, context -> Response in
            let now = store.clock.now
            _ = try? await store.endExpiredHostedLinks(at: now)
            var active: [LinkRow] = []
            var ended: [LinkRow] = []
            for link in try await store.hostedLinks(includeEnded: true) {
                let row = LinkRow(link, log: try await store.linkAccessLog(handle: link.handle, newestFirst: 1000), now: now)
                if row.active { active.append(row) } else { ended.append(row) }
            }
            return pages.page(context, LinksPage(active: active, ended: ended))
        }
        group.get("/links/new") { _, context -> Response in
            try await newLinkPage(context, error: nil)
        }
        pages.post(group, "/links") { form, context -> Response in
            let now = store.clock.now
            let cards = form.all("card")
            var content = HostedLinkContent()
            switch form["what"] {
            case "summary": content.summary = true
            case "cards": break
            default: content.checkIn = true
            }
            if !content.checkIn { content.cards = cards }
            let lifetime = Int(form["lifetime"] ?? "") ?? 900
            guard NewLinkPage.lifetimeChoices.contains(where: { $0.0 == lifetime }) else {
                return try await newLinkPage(context, error: "Choose how long the link works.", status: .badRequest)
            }
            let passcode = form["passcode"].flatMap { $0.isEmpty ? nil : $0 }
            let label = form["label"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces) }
            let options = LinkOptions(
                expires: now.addingTimeInterval(TimeInterval(lifetime)), passcode: passcode,
                attempts: Int(form["attempts"] ?? "") ?? LinkPasscode.defaultAttempts, longTerm: form["longTerm"] == "1" && !content.checkIn,
                label: label, kdf: passcodeCost, madeBy: context.session?.proxy?.id)
            let published: PublishedLink
            do { published = try await LinkPublisher(store: store, baseURL: address.baseURL).publish(content, options: options, now: now) } catch {
                return try await newLinkPage(context, error: Self.words(error as? HostedLinkError ?? .store("\(error)")), status: .badRequest)
            }
            let viewerLink = published.payload.link(viewer: viewer)
            return pages.page(context, CreatedLinkPage(
                handle: published.link.handle, label: published.link.label, viewerLink: viewerLink, link: published.payload.link, qr: Self.qr(viewerLink),
                expires: PageDates.dateTime(published.link.expires), passcode: published.link.passcode, longTerm: published.link.longTerm,
                files: published.link.files.map(LinkFileRow.init)))
        }
        group.get("/links/{handle}") { _, context -> Response in
            guard let link = try await store.hostedLink(handle: context.parameters.get("handle") ?? "") else { return pages.notFound(context) }
            let now = store.clock.now
            let log = try await store.linkAccessLog(handle: link.handle, newestFirst: 100)
            var viewerLink: String?
            // Shown again to the person only: a proxy sees a link's text once, when they make it
            // (and their links end with their role), so none outlasts it in their hands.
            if context.session?.proxy == nil, link.state(at: now) == .active, let sealed = try await store.longTermSecret(handle: link.handle),
                let secret = try? LongTermSecret(data: sealed),
                let payload = try? SHLinkPayload(link: secret.link)
            {
                viewerLink = payload.link(viewer: viewer)
            }
            return pages.page(context, LinkPage(
                title: link.label ?? "Shared link", link: LinkRow(link, log: log, now: now), files: link.files.map(LinkFileRow.init),
                attemptsLeft: link.passcode ? "\(link.attemptsLeft) of \(link.passcodeLimit)" : nil, qr: viewerLink.map(Self.qr), viewerLink: viewerLink,
                log: log.map { e in
                    LinkPage.Access(
                        date: PageDates.dateTime(e.date), recipient: e.recipient ?? "(no name given)", event: LinkPage.words(e.event), status: e.status,
                        served: e.status == 200)
                },
                emptyLog: log.isEmpty))
        }
        pages.post(group, "/links/{handle}/revoke") { _, context -> Response in
            let handle = context.parameters.get("handle") ?? ""
            guard try await store.revokeHostedLink(handle: handle, at: store.clock.now) != .missing else { return pages.notFound(context) }
            return PageRenderer.redirect("/links/\(handle)")
        }
    }

    /// The viewer links open in (a browser with no health app reads the files there).
    var viewer: String { address.baseURL + "/view" }

    private func newLinkPage(_ context: HealthRequestContext, error: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let summary = try await PatientSummaryBuilder(store: store, now: store.clock.now).build()
        let checkIn = Set(RecordCollection.checkInSections)
        let sections = summary.sections.map { s in
            NewLinkPage.SectionPreview(
                title: s.section.title, count: s.count == 0 ? "nothing recorded" : "\(s.count) entr\(s.count == 1 ? "y" : "ies")",
                inCheckIn: checkIn.contains(s.section))
        }
        let cards = try await store.verifiableRecords(VerifiableRecordQuery(sourceTypes: [.smartHealthCard])).map { c in
            NewLinkPage.CardChoice(id: c.identifier, name: (c.record.itemNames.first ?? "Card") + " · " + c.record.subject.fullName)
        }
        return pages.page(context, NewLinkPage(sections: sections, cards: cards, error: error), status: status)
    }

    /// The QR code of a link (level M, as the spec asks), as inline SVG.
    static func qr(_ text: String) -> String {
        (try? CardQRCode.encode(text, level: .M).svgString(moduleSize: 4)) ?? ""
    }

    /// Why a link was not made, for a person.
    static func words(_ error: HostedLinkError) -> String {
        switch error {
        case .noContent: return "Choose what goes in the link."
        case .nothingToShare: return "There is nothing of that kind in your records yet."
        case .passcode: return "A passcode needs 4 to 256 characters, and 1 to 10 wrong tries allowed."
        case .labelTooLong: return "The label can have at most 80 characters."
        default: return error.description
        }
    }
}
