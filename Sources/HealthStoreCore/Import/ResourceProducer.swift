import ClinicalRecords

/// Hands classified resources to a store one at a time, inside the store's import transaction.
///
/// A producer is used by one consumer at a time (the engine's writer); it may read a file as it
/// goes, so memory stays bounded by what one resource needs.
public protocol ResourceProducer: AnyObject, Sendable {
    /// The next resource, or `nil` when there are no more. A throw aborts the whole import.
    func next() throws -> ClassifiedResource?

    /// The next resource as `prepare` made it: what the store does to each resource before
    /// writing it (identity key, digest, sealing). A producer that makes resources on several
    /// threads can run `prepare` there too, beside the making; the default calls it on the
    /// consumer's thread. A consumer uses either this or ``next()``, passing the same
    /// `prepare` each time; a throw from `prepare` aborts the import like one from the producer.
    func nextPrepared(_ prepare: @escaping @Sendable (ClassifiedResource) throws -> any Sendable) throws -> (any Sendable)?
}

extension ResourceProducer {
    public func nextPrepared(_ prepare: @escaping @Sendable (ClassifiedResource) throws -> any Sendable) throws -> (any Sendable)? {
        try next().map(prepare)
    }
}

/// A producer over resources already in memory.
public final class ResourceList: ResourceProducer, @unchecked Sendable {
    // Consumed by a single writer; see ResourceProducer.
    private var items: [ClassifiedResource]
    private var index = 0

    /// Makes a producer over a list.
    public init(_ items: [ClassifiedResource]) { self.items = items }

    public func next() throws -> ClassifiedResource? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return items[index]
    }
}

/// What importing one batch of resources did.
public struct ImportOutcome: Sendable, Hashable, Codable {
    /// Records that were new.
    public var inserted = 0
    /// Records whose bytes changed.
    public var updated = 0
    /// Records already stored with the same bytes.
    public var unchanged = 0
    /// Resources that are not clinical records (Patient, Encounter…), kept as context.
    public var notRecords = 0
    /// Of ``notRecords``, those that were new.
    public var contextInserted = 0
    /// Of ``notRecords``, those whose bytes changed.
    public var contextUpdated = 0

    /// Makes an outcome; ``+=`` adds up the outcomes of batches and files.
    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, notRecords: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.notRecords = notRecords
    }

    /// Adds another outcome's counts.
    public static func += (a: inout ImportOutcome, b: ImportOutcome) {
        a.inserted += b.inserted
        a.updated += b.updated
        a.unchanged += b.unchanged
        a.notRecords += b.notRecords
        a.contextInserted += b.contextInserted
        a.contextUpdated += b.contextUpdated
    }
}
