import ClinicalRecords
import Dispatch
import FHIR
import Foundation
import HealthStoreCore

/// Hands a page's resources to the store's import, made from the page's entries and
/// classified, leaving out any resource not shown to be the connected patient's
/// (``PatientCompartment``): a server that ignores `patient=` must not fill the person's store
/// with other people's records.
///
/// A large page is made in order by the store's feed thread and helper threads together
/// (``InOrderWork``), chunk by chunk from the front, while the writer stores what came before;
/// each thread also runs the store's preparation of what it made (``nextPrepared(_:)``), so
/// the feed's thread alone does not hash and seal every resource.
final class PageProducer: ResourceProducer, @unchecked Sendable {
    // `next()` and `nextPrepared(_:)` are called by one consumer at a time (see ResourceProducer).
    private var work: InOrderWork<Result<Slot, any Error>>?
    private let entries: PageEntries
    private let builder: RecordBuilder
    private let patient: String
    private let slots: Int
    private var index = 0
    private var released = false
    /// `Type/id` of every resource handed over.
    private(set) var stored: [String] = []
    /// How many were left out for not being the connected patient's.
    private(set) var dropped = 0

    /// What one entry came to.
    private enum Slot: Sendable {
        /// An OperationOutcome: not the person's.
        case skipped
        /// It is not shown to be the connected patient's.
        case dropped
        /// Its `Type/id`, and the classified resource or what the store's `prepare` made of it.
        case made(key: String, value: any Sendable)
    }

    /// Pages smaller than this are made on the feed's thread alone.
    static let parallelFrom = 512

    /// Helper threads for a large page: one fewer than the cores (the feed's thread is the
    /// other), at most three; at least one, so the writer's core is not the only one making.
    static let helpers = min(3, max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    init(page: ProviderPage, builder: RecordBuilder, patient: String) {
        entries = page.entries
        self.builder = builder
        self.patient = patient
        slots = entries.slots
        stored.reserveCapacity(slots)
    }

    deinit {
        // An import that failed half-way: the helpers need not make the rest.
        work?.stop()
    }

    func next() throws -> ClassifiedResource? {
        try take(nil).map { $0 as! ClassifiedResource }
    }

    func nextPrepared(_ prepare: @escaping @Sendable (ClassifiedResource) throws -> any Sendable) throws -> (any Sendable)? {
        try take(prepare)
    }

    /// The next entry's value; the first call starts the work (with `prepare`, when given, run
    /// beside the making on every thread).
    private func take(_ prepare: (@Sendable (ClassifiedResource) throws -> any Sendable)?) throws -> (any Sendable)? {
        guard !released else { return nil }
        let work = self.work ?? start(prepare)
        while index < slots {
            let i = index
            index += 1
            switch try work.value(at: i).get() {
            case .skipped: continue
            case .dropped: dropped += 1
            case .made(let key, let value):
                stored.append(key)
                return value
            }
        }
        return nil
    }

    private func start(_ prepare: (@Sendable (ClassifiedResource) throws -> any Sendable)?) -> InOrderWork<Result<Slot, any Error>> {
        let (entries, builder, patient) = (self.entries, self.builder, self.patient)
        let work = InOrderWork(count: slots, helpers: slots >= Self.parallelFrom ? Self.helpers : 0) { i in
            Result { () throws -> Slot in
                let made = try Self.make(i, of: entries, builder: builder, patient: patient)
                switch made {
                case .skipped: return .skipped
                case .dropped: return .dropped
                case .classified(let classified):
                    let key = classified.resource.resourceType.rawValue + "/" + classified.resource.identifier
                    return .made(key: key, value: try prepare.map { try $0(classified) } ?? classified)
                }
            }
        }
        self.work = work
        return work
    }

    /// Frees what the page's entries became on another thread (see ``BackgroundRelease``),
    /// once the import is over; helpers still making entries stop after their chunk.
    func releaseInBackground() {
        released = true
        guard let work else { return }
        self.work = nil
        work.stop()
        BackgroundRelease.release(work)
    }

    /// Entry `i` made into a resource and classified: `nil` for an OperationOutcome. A Bundle's
    /// entry is read in place on the page's tape, never made into a tree.
    private static func make(_ i: Int, of entries: PageEntries, builder: RecordBuilder, patient: String) throws(FHIRError) -> Made {
        switch entries {
        case .resources(let list):
            let resource = list[i]
            guard resource.resourceType.rawValue != "OperationOutcome" else { return .skipped }
            return try made(resource, resource.json(), builder: builder, patient: patient) { ref in entries.resolve(ref) }
        case .taped(let bundle):
            let (entry, object) = try bundle.entryOnTape(i)
            guard let resource = entry.resource, resource.resourceType.rawValue != "OperationOutcome" else { return .skipped }
            return made(resource, object, builder: builder, patient: patient) { ref in bundle.object(for: ref) }
        }
    }

    private static func made<Object: FHIRObjectReading>(
        _ resource: FHIRResource, _ json: Object, builder: RecordBuilder, patient: String, resolve: (String) -> Object?
    ) -> Made {
        if PatientCompartment.leftOut(resource, json, patient: patient, resolve: resolve) != nil { return .dropped }
        return .classified(builder.classify(resource, reading: json, resolve: resolve))
    }

    /// What making an entry came to.
    private enum Made {
        /// An OperationOutcome: not the person's.
        case skipped
        /// It is not shown to be the connected patient's.
        case dropped
        case classified(ClassifiedResource)
    }
}
