import HealthStoreCore
import SmartHealthCards

/// Verifiable clinical records (SMART Health Cards and EU DCCs) as both front ends write them.
///
/// An app gets what HealthKit hands it (`HKVerifiableClinicalRecord`): the card's fields and
/// `dataRepresentation`, the compact JWS it verifies itself. The owner also sees what only the
/// store knows — when the card was added and how its verification went — under keys an app
/// never gets, so one key names one thing for both.
public enum CardJSON {
    /// Who reads the card.
    public enum Reader: Sendable {
        /// An app, through a one-time share.
        case app
        /// The person whose store it is.
        case owner
    }

    /// A stored card as `reader` may see it: an app gets HealthKit's fields, the owner also the store's own.
    public static func card(_ c: StoredVerifiableRecord, for reader: Reader) -> EncodedJSON {
        let r = c.record
        var members: [(String, EncodedJSON)] = [
            ("id", .string(c.identifier)),
            ("sourceType", .string(r.sourceType.rawValue)),
            ("issuerIdentifier", .string(r.issuerIdentifier)),
            ("recordTypes", .array(r.recordTypes.map { .string($0) })),
            ("itemNames", .array(r.itemNames.map { .string($0) })),
            ("subject", .object([("fullName", .string(r.subject.fullName)), ("dateOfBirth", .string(r.subject.dateOfBirth?.text))])),
            ("issuedDate", .date(r.issuedDate)),
            ("relevantDate", .date(r.relevantDate)),
            ("expirationDate", .date(r.expirationDate)),
        ]
        if let payload = r.decodedPayload { members.append(("payload", .value(payload))) }
        if reader == .owner {
            members += [("addedDate", .date(c.addedDate)), ("status", .string(c.status.name))]
            switch c.status {
            case .verified(let trusted): members.append(("trusted", .bool(trusted)))
            case .unverified(let codes): members.append(("errors", .array(codes.map { .string($0) })))
            }
        }
        members.append(("dataRepresentation", .string(r.jws)))
        return .object(members)
    }

    /// The cards of a query, in the store's order.
    public static func list(_ cards: [StoredVerifiableRecord], for reader: Reader) -> EncodedJSON {
        .array(cards.map { card($0, for: reader) })
    }
}
