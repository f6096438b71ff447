import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import SmartHealthCards

/// The person's own pages: the records timeline, cards, the immunization checklist, and the
/// apps with their grants and audit log. The person reads the store directly (these reads
/// are the owner's, not an app's, so they are not audited).
struct PersonRoutes {
    let state: ServerState

    /// Records shown per type on the timeline (all types), and when one type is chosen.
    static let perType = 5
    static let oneType = 1000

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/") { request, context -> Response in
            let chosen = request.uri.queryParameters.get("type").flatMap(ClinicalType.init(name:))
            var groups: [[String: Any]] = []
            for type in chosen.map({ [$0] }) ?? ClinicalType.allCases {
                let total = try await state.store.count(RecordQuery(type: type))
                guard total > 0 else { continue }
                let limit = chosen == nil ? Self.perType : Self.oneType
                let records = try await state.store.records(RecordQuery(type: type, limit: limit, sort: RecordSort(.clinical, ascending: false)))
                groups.append([
                    "title": type.title, "type": type.name, "total": total, "more": total > records.count && chosen == nil,
                    "records": records.map(recordRow),
                ])
            }
            return page(context, "timeline", ["title": chosen?.title ?? "Health records", "groups": groups, "empty": groups.isEmpty, "filtered": chosen != nil])
        }
        group.get("/cards") { _, context -> Response in
            let cards = try await state.store.verifiableRecords(VerifiableRecordQuery())
            return page(context, "cards", ["title": "Verifiable records", "cards": cards.map(Self.cardValues), "empty": cards.isEmpty])
        }
        group.get("/cards/{id}") { _, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard let card = try await state.store.verifiableRecords(VerifiableRecordQuery()).first(where: { $0.identifier == id }) else {
                return notFound(context)
            }
            return page(context, "card", Self.cardValues(card).merging(["title": "Card details"]) { $1 })
        }
        group.get("/immunizations") { _, context -> Response in
            let records = try await state.store.records(RecordQuery(type: .immunization, sort: RecordSort(.clinical)))
            let patients = try await state.store.contextResources(ofType: .patient, source: nil)
            let births = Set(patients.compactMap { try? $0.resource.json().date("birthDate") })
            let checklist = ImmunizationChecklist(records: records, birthDate: births.count == 1 ? births.first : nil)
            func items(_ list: [ChecklistItem]) -> [[String: Any]] {
                list.map { item in
                    ["name": item.name, "count": item.doses.count, "dates": item.doses.map { Self.shortDate($0.date) }.joined(separator: ", ")]
                }
            }
            return page(context, "immunizations", [
                "title": "Immunizations", "groups": items(checklist.vaccineGroups), "antigens": items(checklist.antigens),
                "unmapped": checklist.unmapped.count, "hasUnmapped": !checklist.unmapped.isEmpty, "empty": records.isEmpty,
            ])
        }
        group.get("/apps") { _, context -> Response in
            var apps: [[String: Any]] = []
            for app in try await state.consent.apps() {
                let grants = try await state.consent.grants(appID: app.registration.id)
                apps.append([
                    "id": app.registration.id, "name": app.registration.name, "purpose": app.registration.purpose,
                    "allowed": grants.filter { $0.decision == .allowed }.count, "denied": grants.filter { $0.decision == .denied }.count,
                ])
            }
            return page(context, "apps", ["title": "Apps", "apps": apps, "empty": apps.isEmpty])
        }
        group.get("/apps/{id}") { _, context -> Response in
            guard let id = context.parameters.get("id"), let app = try? await state.consent.app(id) else { return notFound(context) }
            return page(context, "app", try await appValues(app.registration))
        }
        group.post("/apps/{id}/approve") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            guard let id = context.parameters.get("id"), (try? await state.consent.app(id)) != nil else { return notFound(context) }
            try await state.consent.approveNewData(appID: id)
            return PageRenderer.redirect("/apps/\(id)")
        }
        group.post("/apps/{id}/revoke") { request, context -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            try form.checkCSRF(context.session)
            guard let id = context.parameters.get("id"), (try? await state.consent.app(id)) != nil else { return notFound(context) }
            try await state.consent.revoke(appID: id)
            state.endAllAccess(appID: id)
            return PageRenderer.redirect("/apps/\(id)")
        }
    }

    private func appValues(_ app: AppRegistration) async throws -> [String: Any] {
        let grants = try await state.consent.grants(appID: app.id)
        let audit = try await state.consent.auditLog(appID: app.id, newestFirst: 100)
        return [
            "title": app.name, "id": app.id, "name": app.name, "purpose": app.purpose, "privacy": app.privacyPolicyURL.absoluteString,
            "registered": Self.shortDate(app.registeredDate),
            "requested": app.requestedTypes.sorted().map { ["title": TypeDescriptions.title($0), "required": app.requiredTypes.contains($0)] },
            "grants": grants.map { g -> [String: Any] in
                [
                    "title": TypeDescriptions.title(g.type), "allowed": g.decision == .allowed,
                    "newData": g.newData == .share ? "shared automatically" : "asks first", "date": Self.shortDate(g.decidedDate),
                ]
            },
            "hasGrants": !grants.isEmpty,
            "canApprove": grants.contains { $0.decision == .allowed && $0.newData == .ask },
            "audit": audit.map { e -> [String: Any] in
                [
                    "date": Self.dateTime(e.date), "operation": e.operation, "types": e.types.map(TypeDescriptions.title).joined(separator: ", "),
                    "hasTypes": !e.types.isEmpty, "count": e.count,
                ]
            },
            "hasAudit": !audit.isEmpty,
        ]
    }

    /// A record as a list shows it: its name linking to its page, its value and flag for a
    /// result, its date and the provider it came from.
    func recordRow(_ r: ClinicalRecord) -> [String: Any] {
        let details = RecordDetails(record: r)
        return [
            "name": r.displayName, "link": RecordPageRoutes.link(r.identity), "date": Self.shortDate(r.clinicalDate), "source": r.source.name,
            "resource": r.fhirResource.resourceType.rawValue, "value": details.values.first?.text ?? "", "hasValue": !details.values.isEmpty,
            "flag": details.flag.flatMap { $0.isFlagged ? $0.text : nil } ?? "", "flagged": details.flag?.isFlagged ?? false,
        ]
    }

    static func cardValues(_ c: StoredVerifiableRecord) -> [String: Any] {
        var status: String
        var ok = false
        switch c.status {
        case .verified(let trusted):
            status = trusted ? "Verified — signature valid, issuer trusted" : "Verified — signature valid; issuer not on a trust list"
            ok = true
        case .unverified(let codes): status = "Not verified: " + codes.joined(separator: ", ")
        }
        let dcc = c.record.sourceType == .euDigitalCOVIDCertificate
        return [
            "kind": dcc ? "EU Digital COVID Certificate" : "SMART Health Card", "dcc": dcc, "entry": dccEntry(c.record),
            "id": c.identifier, "issuer": c.record.issuerIdentifier, "subject": c.record.subject.fullName,
            "birth": c.record.subject.dateOfBirth?.text ?? "", "items": c.record.itemNames, "types": c.record.recordTypes.joined(separator: ", "),
            "relevant": c.record.relevantDate.map(shortDate) ?? "—", "issued": shortDate(c.record.issuedDate),
            "expires": c.record.expirationDate.map(shortDate) ?? "never", "status": status, "verified": ok,
        ]
    }

    /// The fields of a DCC's one entry (`v[0]`, `t[0]` or `r[0]`), named as the EU's
    /// certificate template names them, for the details page; empty for a card.
    static func dccEntry(_ r: VerifiableClinicalRecord) -> [[String: String]] {
        guard let payload = r.decodedPayload?.objectValue else { return [] }
        let labels: [(String, String)] = [
            ("tg", "Disease"), ("vp", "Vaccine type"), ("mp", "Product"), ("ma", "Manufacturer"), ("dn", "Dose"), ("sd", "Doses in series"),
            ("dt", "Vaccinated on"), ("tt", "Test type"), ("nm", "Test name"), ("sc", "Sample taken"), ("tr", "Result"), ("tc", "Test centre"),
            ("fr", "First positive test"), ("df", "Valid from"), ("du", "Valid until"), ("co", "Country"), ("is", "Issued by"), ("ci", "Certificate identifier"),
        ]
        guard let entry = ["v", "t", "r"].lazy.compactMap({ payload[$0]?.arrayValue?.first?.objectValue }).first else { return [] }
        return labels.compactMap { key, label in
            guard let value = entry[key] else { return nil }
            let text: String
            switch value {
            case .string(let s): text = s
            case .number(let n): text = n.description
            default: return nil
            }
            return ["label": label, "value": text]
        }
    }

    /// A page with the layout's values (signed in, the form token).
    func page(_ context: HealthRequestContext, _ template: String, _ values: [String: Any]) -> Response {
        var v = values
        v["signedIn"] = true
        v["csrf"] = context.session?.csrfToken ?? ""
        return state.pages.page(template, v)
    }

    func notFound(_ context: HealthRequestContext) -> Response {
        state.pages.page("message", ["title": "Not found", "message": "There is nothing here. It may have expired or been answered.", "signedIn": true, "csrf": context.session?.csrfToken ?? ""], status: .notFound)
    }

    static func shortDate(_ d: FHIRDate?) -> String { d.map { String($0.text.prefix(10)) } ?? "—" }
    static func shortDate(_ d: Date) -> String { String(InstantText.string(d).prefix(10)) }
    static func dateTime(_ d: Date) -> String { String(InstantText.string(d).prefix(16)).replacingOccurrences(of: "T", with: " ") }
}
