import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Hummingbird

/// The person's own pages: the records timeline, cards, the immunization checklist, and the
/// apps with their grants and audit log. The person reads the store directly (these reads
/// are the owner's, not an app's, so they are not audited). Each page reads what it shows in a
/// few statements, however many records the store holds.
struct PersonRoutes {
    let records: any RecordReading & CardStorage & MedicationNoteStorage
    let consent: ConsentManager
    let access: AppAccess
    let pages: PersonPages

    /// The medications group: the newest `limit` medications of the list; `nil` when none.
    func medicationGroup(limit: Int) async throws -> TimelinePage.Group? {
        let all = try await records.records(RecordQuery(type: .medication, sort: RecordSort(.clinical, ascending: false)))
        let byIdentity = Dictionary(all.map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
        let notes = try await records.medicationNotes()
        let entries = try await records.medicationList(of: all).entries.filter { !(notes[$0.id]?.archived ?? false) }
            .sorted { ($0.latestDate?.date ?? .distantPast) > ($1.latestDate?.date ?? .distantPast) }
        guard !entries.isEmpty else { return nil }
        let rows = entries.prefix(limit).compactMap { e -> RecordRow? in
            guard let newest = e.records.reversed().lazy.compactMap({ byIdentity[$0] }).first else { return nil }
            let more = e.records.count > 1 ? "\(e.records.count) records from \(e.sources.count) provider\(e.sources.count == 1 ? "" : "s")" : nil
            return RecordRow(newest, name: notes[e.id]?.nickname.map { "\($0) (\(e.name))" } ?? e.name, also: more)
        }
        return TimelinePage.Group(
            title: ClinicalType.medication.title, type: ClinicalType.medication.name, total: entries.count, more: entries.count > rows.count, records: rows)
    }

    /// Records shown per type on the timeline (all types), and when one type is chosen.
    static let perType = 5
    static let oneType = 1000

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/", use: timeline)
        group.get("/cards") { _, context -> Response in
            pages.page(context, CardsPage(cards: try await records.verifiableRecords(VerifiableRecordQuery()).map(CardSummary.init)))
        }
        group.get("/cards/{id}") { _, context -> Response in
            guard let card = try await records.verifiableRecord(identifier: context.parameters.get("id") ?? "") else { return pages.notFound(context) }
            return pages.page(context, CardPage(card: CardSummary(card)))
        }
        // The app API has `/medications`; the person's page is the list's own name.
        group.get("/medication-list") { _, context -> Response in
            pages.page(context, MedicationsPage(try await records.annotatedMedications()))
        }
        pages.post(group, "/medication-list/{id}") { form, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard let m = try await records.annotatedMedications().first(where: { $0.entry.id == id }) else { return pages.notFound(context) }
            var note = m.note
            switch form["action"] {
            case "nickname": note = MedicationNote(nickname: form["nickname"], archived: note.archived)
            case "archive": note.archived = true
            case "restore": note.archived = false
            default: return pages.message(context, "Not changed", "Choose a nickname, Archive or Restore. Nothing was changed.", status: .badRequest)
            }
            try await records.saveMedicationNote(note, for: id)
            return PageRenderer.redirect("/medication-list#medication-\(id)")
        }
        group.get("/immunizations") { _, context -> Response in
            let immunizations = try await records.records(RecordQuery(type: .immunization, sort: RecordSort(.clinical)))
            let patients = try await records.contextResources(ofType: .patient, source: nil)
            let births = Set(patients.compactMap { try? $0.resource.json().date("birthDate") })
            let checklist = ImmunizationChecklist(records: immunizations, birthDate: births.count == 1 ? births.first : nil)
            return pages.page(context, ImmunizationsPage(checklist, empty: immunizations.isEmpty))
        }
        group.get("/apps") { _, context -> Response in
            var apps: [AppsPage.App] = []
            for app in try await consent.apps() {
                let grants = try await consent.grants(appID: app.registration.id)
                apps.append(AppsPage.App(
                    id: app.registration.id, name: app.registration.name, purpose: app.registration.purpose,
                    allowed: grants.filter { $0.decision == .allowed }.count, denied: grants.filter { $0.decision == .denied }.count))
            }
            return pages.page(context, AppsPage(apps: apps, reviewDue: try await consent.reviewIsDue(), mayRegister: context.session?.proxy == nil))
        }
        group.get("/apps/{id}") { _, context -> Response in
            guard let id = context.parameters.get("id"), let app = try? await consent.app(id) else { return pages.notFound(context) }
            let grants = try await consent.grants(appID: id)
            let audit = try await consent.auditLog(appID: id, newestFirst: 100)
            return pages.page(context, AppPage(app.registration, grants: grants, audit: audit))
        }
        pages.post(group, "/apps/{id}/approve") { _, context -> Response in
            guard let id = context.parameters.get("id"), (try? await consent.app(id)) != nil else { return pages.notFound(context) }
            try await consent.approveNewData(appID: id)
            return PageRenderer.redirect("/apps/\(id)")
        }
        pages.post(group, "/apps/{id}/revoke") { _, context -> Response in
            guard let id = context.parameters.get("id"), (try? await consent.app(id)) != nil else { return pages.notFound(context) }
            try await consent.revoke(appID: id)
            try await access.endAllAccess(appID: id)
            return PageRenderer.redirect("/apps/\(id)")
        }
    }

    /// The timeline: with no type chosen, the counts in one statement and the newest records of
    /// every type in another; with one, its count and its records. Medications are one line per
    /// medication of the list (its newest record, named as the person named it), archived ones
    /// left out: three statements, the medication records, their Medications and the notes.
    @Sendable func timeline(_ request: Request, _ context: HealthRequestContext) async throws -> Response {
        let chosen = request.uri.queryParameters.get("type").flatMap(ClinicalType.init(name:))
        var groups: [TimelinePage.Group] = []
        if let chosen {
            if chosen == .medication {
                if let group = try await medicationGroup(limit: Self.oneType) { groups.append(group) }
            } else {
                let total = try await records.count(RecordQuery(type: chosen))
                if total > 0 {
                    let shown = try await records.records(RecordQuery(type: chosen, limit: Self.oneType, sort: RecordSort(.clinical, ascending: false)))
                    groups.append(TimelinePage.Group(title: chosen.title, type: chosen.name, total: total, more: false, records: shown.map { RecordRow($0) }))
                }
            }
        } else {
            let totals = try await records.recordCounts()
            let newest = Dictionary(grouping: try await records.latestRecords(perType: Self.perType), by: \.clinicalType)
            for type in ClinicalType.allCases {
                guard let total = totals[type], total > 0 else { continue }
                if type == .medication {
                    if let group = try await medicationGroup(limit: Self.perType) { groups.append(group) }
                    continue
                }
                let shown = newest[type] ?? []
                groups.append(TimelinePage.Group(title: type.title, type: type.name, total: total, more: total > shown.count, records: shown.map { RecordRow($0) }))
            }
        }
        let reviewDue = chosen == nil ? try await consent.reviewIsDue() : false
        return pages.page(context, TimelinePage(title: chosen?.title ?? "Health records", groups: groups, filtered: chosen != nil, reviewDue: reviewDue))
    }
}
