import ClinicalRecords
import Foundation

/// Per-medication authorization (HealthKit's per-object authorization for medications): the
/// person picks which medications of their list an app may read. Until a pick is made, a
/// medication grant reads every medication record; once made, only the records behind the
/// picked medications, and a medication that appears later is not read until picked.
extension ConsentManager {
    /// The medications the person can pick from: their whole list.
    public func offeredMedications() async throws -> [MedicationEntry] { try await store.medicationList().entries }

    /// The medications picked for an app; `nil` when none was ever picked.
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)``.
    public func medicationChoice(appID: String) async throws -> Set<String>? {
        _ = try await app(appID)
        return try await store.medicationChoice(appID: appID)
    }

    /// Picks the medications an app may read (replacing any earlier pick), or with `nil` lets its
    /// medication grant read every medication again. Records that become visible count as a
    /// change of the medication grant, so anchored queries from before deliver them.
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)``, ``ConsentError/typeNotRequested(_:)`` for an
    ///   app that did not ask for medications, ``ConsentError/medicationNotOffered(_:)``.
    public func pickMedications(appID: String, _ picked: Set<String>?) async throws {
        let app = try await self.app(appID).registration
        guard app.requestedTypes.contains(.clinical(.medication)) else { throw ConsentError.typeNotRequested(.clinical(.medication)) }
        if let picked {
            let offered = Set(try await offeredMedications().map(\.id))
            if let unknown = picked.subtracting(offered).sorted().first { throw ConsentError.medicationNotOffered(unknown) }
        }
        try await store.saveMedicationChoice(appID: appID, entries: picked)
        if var grant = try await store.grants(appID: appID).first(where: { $0.type == .clinical(.medication) }) {
            grant.changedAnchor = try await store.reserveAnchor()
            try await store.saveGrants([grant])
        }
    }
}
