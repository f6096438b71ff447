import ClinicalRecords
import Dispatch
import FHIR
import Foundation
import HealthStoreCore

/// Hands a page's resources to the store's import, made from the page's entries and
/// classified, leaving out any resource that names another Patient: a server that ignores
/// `patient=` must not fill the person's store with other people's records.
///
/// Making and classifying cost more than writing, so a large page is done in two halves at
/// once: the first as the writer asks for it (on the feed's thread), the second on another
/// thread from the start; the writer takes the second half's results when it gets there.
final class PageProducer: ResourceProducer, @unchecked Sendable {
    // `next()` is called by one consumer at a time (see ResourceProducer). The second half's
    // results are written by its own job before `done` is signalled and read only after.
    private var entries: PageEntries
    private let builder: RecordBuilder
    private let patient: String
    private let split: Int
    private let slots: Int
    private var index = 0
    private var late: [Result<Slot, FHIRError>] = []
    private let done = DispatchSemaphore(value: 0)
    private var waited = false
    /// `Type/id` of every resource handed over.
    private(set) var stored: [String] = []
    /// How many were left out for naming another Patient.
    private(set) var dropped = 0

    /// What one entry came to.
    private enum Slot {
        /// An OperationOutcome: not the person's.
        case skipped
        /// It names another Patient.
        case dropped
        case classified(ClassifiedResource)
    }

    /// Pages smaller than this are done on one thread.
    static let parallelFrom = 128

    init(page: ProviderPage, builder: RecordBuilder, patient: String) {
        entries = page.entries
        self.builder = builder
        self.patient = patient
        slots = entries.slots
        split = slots >= Self.parallelFrom ? slots / 2 : slots
        stored.reserveCapacity(slots)
        if split < slots {
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                late = (split..<slots).map { i in Result { () throws(FHIRError) in try make(i) } }
                done.signal()
            }
        }
    }

    func next() throws -> ClassifiedResource? {
        while index < slots {
            let i = index
            index += 1
            let slot: Slot
            if i < split {
                slot = try make(i)
            } else {
                if !waited {
                    done.wait()
                    waited = true
                }
                slot = try late[i - split].get()
            }
            switch slot {
            case .skipped: continue
            case .dropped: dropped += 1
            case .classified(let result):
                stored.append(result.resource.resourceType.rawValue + "/" + result.resource.identifier)
                return result
            }
        }
        return nil
    }

    /// Frees what the page held on another thread (see ``BackgroundRelease``), once the import
    /// has taken every resource (`next()` returned `nil`, so the second half's job is done).
    func releaseInBackground() {
        BackgroundRelease.release(takeAll())
    }

    /// What the producer holds, leaving it empty (so the release queue holds the last copy).
    private func takeAll() -> (PageEntries, [Result<Slot, FHIRError>]) {
        defer {
            entries = .resources([])
            late = []
        }
        return (entries, late)
    }

    /// Entry `i` made into a resource and classified.
    private func make(_ i: Int) throws(FHIRError) -> Slot {
        guard let resource = try entries.resource(i) else { return .skipped }
        if PatientReferences.namesOtherPatient(resource, than: patient) { return .dropped }
        let entries = self.entries
        return .classified(try builder.classify(resource) { ref in entries.resolve(ref) })
    }
}
