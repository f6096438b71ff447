import HealthStoreCore

/// The medications part of a consent sheet, for an app that asks for medications: what it shows
/// (the person's list, ticked as picked before) and what an answer picks.
struct MedicationPick: Sendable {
    let consent: ConsentManager

    /// The sheet's list; `nil` when the sheet does not ask for medications.
    func shown(appID: String, types: [HealthDataType]) async throws -> [ConsentPage.MedicationChoice]? {
        guard types.contains(.clinical(.medication)) else { return nil }
        let picked = try await consent.medicationChoice(appID: appID) ?? []
        return try await consent.offeredMedications().map { ConsentPage.MedicationChoice($0, checked: picked.contains($0.id)) }
    }

    /// Records the ticked medications when medications were allowed: what the sheet offered and
    /// the person ticked (an id no longer on the list is left out, never an error).
    func answer(_ form: FormFields, appID: String, allowed: Set<HealthDataType>) async throws {
        guard allowed.contains(.clinical(.medication)) else { return }
        let offered = Set(try await consent.offeredMedications().map(\.id))
        try await consent.pickMedications(appID: appID, Set(form.all("medication")).intersection(offered))
    }
}
