import ClinicalRecords
import Dispatch
import FHIR
import Foundation
import HealthStoreCore

/// Hands a page's resources to the store's import, made from the page's entries and
/// classified, leaving out any resource that names another Patient: a server that ignores
/// `patient=` must not fill the person's store with other people's records.
///
/// Making and classifying cost more than writing, so a large page is made in order by the
/// store's feed thread and helper threads together (``InOrderWork``), chunk by chunk from the
/// front, while the writer stores what came before.
final class PageProducer: ResourceProducer, @unchecked Sendable {
    // `next()` is called by one consumer at a time (see ResourceProducer).
    private var work: InOrderWork<Result<Slot, FHIRError>>?
    private let slots: Int
    private var index = 0
    /// `Type/id` of every resource handed over.
    private(set) var stored: [String] = []
    /// How many were left out for naming another Patient.
    private(set) var dropped = 0

    /// What one entry came to.
    private enum Slot: Sendable {
        /// An OperationOutcome: not the person's.
        case skipped
        /// It names another Patient.
        case dropped
        case classified(ClassifiedResource)
    }

    /// Pages smaller than this are made on the feed's thread alone.
    static let parallelFrom = 512

    /// Helper threads for a large page: one fewer than the cores (the feed's thread is the
    /// other), at most three; at least one, so the writer's core is not the only one making.
    static let helpers = min(3, max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    init(page: ProviderPage, builder: RecordBuilder, patient: String) {
        let entries = page.entries
        slots = entries.slots
        stored.reserveCapacity(slots)
        work = InOrderWork(count: slots, helpers: slots >= Self.parallelFrom ? Self.helpers : 0) { i in
            Result { () throws(FHIRError) in try Self.make(i, of: entries, builder: builder, patient: patient) }
        }
    }

    deinit {
        // An import that failed half-way: the helpers need not make the rest.
        work?.stop()
    }

    func next() throws -> ClassifiedResource? {
        guard let work else { return nil }
        while index < slots {
            let i = index
            index += 1
            switch try work.value(at: i).get() {
            case .skipped: continue
            case .dropped: dropped += 1
            case .classified(let result):
                stored.append(result.resource.resourceType.rawValue + "/" + result.resource.identifier)
                return result
            }
        }
        return nil
    }

    /// Frees what the page's entries became on another thread (see ``BackgroundRelease``),
    /// once the import is over; helpers still making entries stop after their chunk.
    func releaseInBackground() {
        guard let work else { return }
        self.work = nil
        work.stop()
        BackgroundRelease.release(work)
    }

    /// Entry `i` made into a resource and classified.
    private static func make(_ i: Int, of entries: PageEntries, builder: RecordBuilder, patient: String) throws(FHIRError) -> Slot {
        guard let resource = try entries.resource(i) else { return .skipped }
        if PatientReferences.namesOtherPatient(resource, than: patient) { return .dropped }
        return .classified(try builder.classify(resource) { ref in entries.resolve(ref) })
    }
}
