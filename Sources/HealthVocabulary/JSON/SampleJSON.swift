import HealthStoreCore

/// Quantity samples as the front ends write them, with the keys records use where the idea is
/// the same (`id`, `source`, `sourceName`, `addedDate`, `anchor`).
public enum SampleJSON {
    /// A stored sample. The value is a string so its exact text survives (`5.40` is not `5.4`);
    /// `signature` is what the store found on saving (`unsigned`, `present`, `malformed: …`);
    /// `anchor` is written by `anchors`.
    public static func sample(_ stored: StoredQuantitySample, anchors: AnchorCoding = .store) -> EncodedJSON {
        let s = stored.sample
        let device: EncodedJSON = s.device.map { d in
            .object([
                ("identifier", .string(d.identifier)), ("name", .string(d.name)), ("manufacturer", .string(d.manufacturer)),
                ("model", .string(d.model)),
            ])
        } ?? .null
        return .object([
            ("id", .string(s.uuid.uuidString)),
            ("type", .string(s.type.name)),
            ("typeIdentifier", .string(s.type.identifier)),
            ("value", .string(s.value)),
            ("unit", .string(s.unit)),
            ("startDate", .date(s.startDate)),
            ("endDate", .date(s.endDate)),
            ("source", .string(s.source.identifier)),
            ("sourceName", .string(s.source.name)),
            ("device", device),
            ("metadata", .object(s.metadata.keys.sorted().map { ($0, .string(s.metadata[$0] ?? "")) })),
            ("signature", .string(stored.signatureStatus.description)),
            ("addedDate", .date(stored.addedDate)),
            ("anchor", .string(anchors.encode(stored.anchor))),
        ])
    }

    /// The samples of a query, in the query's order.
    public static func list(_ samples: [StoredQuantitySample], anchors: AnchorCoding = .store) -> EncodedJSON {
        .array(samples.map { sample($0, anchors: anchors) })
    }
}
