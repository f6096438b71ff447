import Foundation
import SmartHealthCards
import VerifiableRecords

extension StoredVerifiableRecord {
    /// Makes a stored card from its parts, outside the engines (which decode them from rows):
    /// for tests of what front ends write about a card, without a store.
    package init(_ record: VerifiableClinicalRecord, identifier: String, status: CardStatus, addedDate: Date) {
        self.identifier = identifier
        self.record = record
        self.status = status
        self.addedDate = addedDate
    }
}
