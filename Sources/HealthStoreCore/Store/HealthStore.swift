import ClinicalRecords
import FHIR
import Foundation
import SmartHealthCards

/// A place clinical records and quantity samples live: one protocol, several engines (SQLite
/// embedded, PostgreSQL).
///
/// Engines store and query; what a resource *is* (type, display name, clinical date) is decided
/// before it reaches them, so every engine gives the same answers. Records and samples share one
/// anchor counter, so an anchor orders every change in the store.
///
/// Values that identify a person or a condition pass through the engine's ``RecordSealer``:
/// for samples that is the value, unit, device and metadata (signature included); only the
/// quantity type, dates and identity keys are stored in the clear.
///
/// Consumers take the narrowest of the protocols it composes (``RecordReading``,
/// ``RecordWriting``, ``ChangeFeed``, ``SampleStorage``, ``CardStorage``, ``ConsentStorage``,
/// ``CredentialStorage``, ``ProviderStorage``).
///
/// Apps read through ``AppView``, which applies the person's grants on every path; the
/// engine provides only the storage primitives of ``ConsentStorage``.
public protocol HealthStore: RecordReading, RecordWriting, ChangeFeed, SampleStorage, CardStorage, ConsentStorage, CredentialStorage, AppCredentialLookup, ProviderStorage, HostedLinkStorage,
    MedicationNoteStorage, PasskeyStorage, HouseholdStorage, Sendable {}
