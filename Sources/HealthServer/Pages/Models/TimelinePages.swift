import ClinicalRecords
import HealthStoreCore
import HealthVocabulary

/// A record as a list shows it: its name linking to its page, its value and flag for a
/// result, its date and the provider it came from.
struct RecordRow: Sendable {
    let name: String
    let link: String
    let date: String
    let source: String
    let resource: String
    let value: String
    let hasValue: Bool
    let flag: String
    let flagged: Bool

    init(_ r: ClinicalRecord, name shown: String? = nil, also: String? = nil) {
        let details = RecordDetails(record: r)
        name = shown ?? r.displayName
        link = RecordPageRoutes.link(r.identity)
        date = PageDates.short(r.clinicalDate)
        source = also.map { r.source.name + " · " + $0 } ?? r.source.name
        resource = r.fhirResource.resourceType.rawValue
        value = details.values.first?.text ?? ""
        hasValue = !details.values.isEmpty
        flagged = details.flag?.isFlagged ?? false
        flag = flagged ? details.flag?.text ?? "" : ""
    }
}

/// The records timeline (`/`): the newest records of every type, or all of one type.
struct TimelinePage: PageContent {
    static let template = "timeline"

    /// One type's records.
    struct Group: Sendable {
        let title: String
        let type: String
        let total: Int
        let more: Bool
        let records: [RecordRow]
    }

    let title: String
    let groups: [Group]
    let empty: Bool
    let filtered: Bool
    /// Whether an app's access review is due.
    let reviewDue: Bool

    init(title: String, groups: [Group], filtered: Bool, reviewDue: Bool = false) {
        self.title = title
        self.groups = groups
        self.empty = groups.isEmpty
        self.filtered = filtered
        self.reviewDue = reviewDue
    }
}

/// The immunization checklist (`/immunizations`).
struct ImmunizationsPage: PageContent {
    static let template = "immunizations"

    /// A vaccine group or antigen and its doses.
    struct Item: Sendable {
        let name: String
        let count: Int
        let dates: String

        init(_ item: ChecklistItem) {
            name = item.name
            count = item.doses.count
            dates = item.doses.map { PageDates.short($0.date) }.joined(separator: ", ")
        }
    }

    let title = "Immunizations"
    let groups: [Item]
    let antigens: [Item]
    let unmapped: Int
    let hasUnmapped: Bool
    let empty: Bool

    init(_ checklist: ImmunizationChecklist, empty: Bool) {
        groups = checklist.vaccineGroups.map(Item.init)
        antigens = checklist.antigens.map(Item.init)
        unmapped = checklist.unmapped.count
        hasUnmapped = !checklist.unmapped.isEmpty
        self.empty = empty
    }
}
