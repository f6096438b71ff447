import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// Hands a page's resources to the store's import, classifying each as the writer asks for it
/// (on the feed's thread, while the previous batch is written), and leaving out any resource
/// that names another Patient: a server that ignores `patient=` must not fill the person's
/// store with other people's records.
final class PageProducer: ResourceProducer, @unchecked Sendable {
    // Consumed by a single writer at a time (see ResourceProducer); read after the import.
    private let page: ProviderPage
    private let builder: RecordBuilder
    private let patient: String
    private var index = 0
    /// `Type/id` of every resource handed over.
    private(set) var stored: [String] = []
    /// How many were left out for naming another Patient.
    private(set) var dropped = 0

    init(page: ProviderPage, builder: RecordBuilder, patient: String) {
        self.page = page
        self.builder = builder
        self.patient = patient
        stored.reserveCapacity(page.resources.count)
    }

    func next() throws -> ClassifiedResource? {
        while index < page.resources.count {
            let resource = page.resources[index]
            index += 1
            if PatientReferences.namesOtherPatient(resource, than: patient) {
                dropped += 1
                continue
            }
            let bundle = page.bundle
            let classified = try builder.classify(resource) { ref in try? bundle?.entry(for: ref)?.resource?.json() }
            stored.append(resource.resourceType.rawValue + "/" + resource.identifier)
            return classified
        }
        return nil
    }
}
