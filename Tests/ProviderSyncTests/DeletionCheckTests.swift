import FHIR
import Testing

@testable import ProviderSync

/// After a full download the sync asks the store only how many resources the source holds:
/// when that is no more than were seen (all of which were just stored), nothing is gone.
@Suite struct DeletionCheckTests {
    @Test func everyTypeJudgedComparesWithEverythingSeen() {
        let seen: Set<String> = ["Patient/p", "Observation/1", "Observation/2"]
        #expect(!ProviderSyncer.mayHaveGone(held: 3, seen: seen, types: nil))
        #expect(ProviderSyncer.mayHaveGone(held: 4, seen: seen, types: nil))
    }

    /// A search that also returned a resource of a type not searched (an included Practitioner)
    /// must not make up for a searched resource that is gone.
    @Test func onlyTheTypesSearchedAreCounted() {
        let seen: Set<String> = ["Patient/p", "Observation/1", "Practitioner/dr"]
        let types: Set<FHIRResourceType> = [.patient, .observation]
        // The source holds Patient/p, Observation/1 and Observation/2 of those types: 2 is gone.
        #expect(ProviderSyncer.mayHaveGone(held: 3, seen: seen, types: types))
        #expect(!ProviderSyncer.mayHaveGone(held: 2, seen: seen, types: types))
    }
}
