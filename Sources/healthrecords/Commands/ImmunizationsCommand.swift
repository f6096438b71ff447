import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

struct ImmunizationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "immunizations", abstract: "The immunization checklist: vaccine groups and antigens, with the dates of the doses that cover them.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only records from this source.")
    var source: String?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let records = try await store.records(
            RecordQuery(type: .immunization, predicate: source.map(RecordPredicate.source), sort: RecordSort(.clinical)))
        let patients = try await store.contextResources(ofType: .patient, source: source)
        let births = Set(patients.compactMap { try? $0.resource.json().date("birthDate") })
        let checklist = ImmunizationChecklist(records: records, birthDate: births.count == 1 ? births.first : nil)
        if json {
            func items(_ list: [ChecklistItem]) -> JSONValue {
                .array(list.map { item in
                    .object(JSONObject([
                        "name": .string(item.name),
                        "kind": .string(item.kind.rawValue),
                        "doses": .array(item.doses.map(dose)),
                    ]))
                })
            }
            JSONOutput.print(.object(JSONObject([
                "vaccineGroups": items(checklist.vaccineGroups),
                "antigens": items(checklist.antigens),
                "unmapped": .array(checklist.unmapped.map(dose)),
            ])))
            return
        }
        var table = TextTable("vaccine group", "doses", "dates")
        for item in checklist.vaccineGroups {
            table.add(item.name, "\(item.doses.count)", item.doses.map { $0.date?.text.prefix(10).description ?? "?" }.joined(separator: ", "))
        }
        print(table.rendered)
        print("")
        var antigens = TextTable("antigen", "doses", "dates")
        for item in checklist.antigens {
            antigens.add(item.name, "\(item.doses.count)", item.doses.map { $0.date?.text.prefix(10).description ?? "?" }.joined(separator: ", "))
        }
        print(antigens.rendered)
        if !checklist.unmapped.isEmpty { print("\n\(checklist.unmapped.count) dose(s) without a known CVX code") }
    }

    private func dose(_ d: ImmunizationDose) -> JSONValue {
        .object(JSONObject([
            "date": JSONOutput.string(d.date?.text),
            "cvx": JSONOutput.string(d.cvx),
            "vaccine": .string(d.vaccineName),
            "resource": JSONOutput.string(d.record.map { "\($0.resourceType.rawValue)/\($0.identifier)" }),
            "source": JSONOutput.string(d.record?.source),
        ]))
    }
}
