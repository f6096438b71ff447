import ClinicalRecords
import Dispatch
import FHIR
import Foundation
import HealthStoreCore

/// Hands a page's resources to the store's import, classified, leaving out any resource that
/// names another Patient: a server that ignores `patient=` must not fill the person's store with
/// other people's records.
///
/// Classifying costs more than writing, so a large page is classified in two halves at once:
/// the first as the writer asks for it (on the feed's thread), the second on another thread
/// from the start; the writer takes the second half's results when it gets there.
final class PageProducer: ResourceProducer, @unchecked Sendable {
    // `next()` is called by one consumer at a time (see ResourceProducer). The second half's
    // results are written by its own job before `done` is signalled and read only after.
    private let page: ProviderPage
    private let builder: RecordBuilder
    private let patient: String
    private let split: Int
    private var index = 0
    private var late: [Result<ClassifiedResource?, FHIRError>] = []
    private let done = DispatchSemaphore(value: 0)
    private var waited = false
    /// `Type/id` of every resource handed over.
    private(set) var stored: [String] = []
    /// How many were left out for naming another Patient.
    private(set) var dropped = 0

    /// Pages smaller than this are classified on one thread.
    static let parallelFrom = 128

    init(page: ProviderPage, builder: RecordBuilder, patient: String) {
        self.page = page
        self.builder = builder
        self.patient = patient
        let count = page.resources.count
        split = count >= Self.parallelFrom ? count / 2 : count
        stored.reserveCapacity(count)
        if split < count {
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                late = (split..<count).map { i in Result { () throws(FHIRError) in try classify(page.resources[i]) } }
                done.signal()
            }
        }
    }

    func next() throws -> ClassifiedResource? {
        while index < page.resources.count {
            let i = index
            index += 1
            let result: ClassifiedResource?
            if i < split {
                result = try classify(page.resources[i])
            } else {
                if !waited {
                    done.wait()
                    waited = true
                }
                result = try late[i - split].get()
            }
            guard let result else {
                dropped += 1
                continue
            }
            stored.append(result.resource.resourceType.rawValue + "/" + result.resource.identifier)
            return result
        }
        return nil
    }

    /// A resource classified, or `nil` when it names another Patient.
    private func classify(_ resource: FHIRResource) throws(FHIRError) -> ClassifiedResource? {
        if PatientReferences.namesOtherPatient(resource, than: patient) { return nil }
        let bundle = page.bundle
        return try builder.classify(resource) { ref in try? bundle?.entry(for: ref)?.resource?.json() }
    }
}
