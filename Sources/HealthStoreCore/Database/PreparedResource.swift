import ClinicalRecords
import Foundation

/// A resource on its way into the store: its row's columns, keyed and sealed on the
/// producer's thread so that the writer, the import's one serial part, only binds them.
///
/// A class, so batches move one reference per resource. It keeps nothing of the classified
/// resource but the bytes to store, so the rest is freed on the producer's thread as soon as
/// this is made, while that memory is still in its cache.
final class PreparedResource: Sendable {
    let identity: Data
    let digest: Data
    let resourceType: String
    let clinicalType: ClinicalType?
    let category: String
    let sealedIdentifier: SealedText
    let sealedDisplayName: SealedText
    let fhirVersion: String
    let sealedSourceURL: SealedText?
    let clinicalDate: Double?
    let clinicalDateText: String?
    let sealedData: Data

    init(_ c: ClassifiedResource, source: String, sealer: some RecordSealer) throws {
        let r = c.resource
        identity = sealer.identityKey([source, r.resourceType.rawValue, r.identifier])
        digest = sealer.contentDigest(r.data)
        resourceType = r.resourceType.rawValue
        clinicalType = c.clinicalType
        category = c.category.rawValue
        sealedIdentifier = try SealedText(r.identifier, sealer)
        sealedDisplayName = try SealedText(c.displayName, sealer)
        fhirVersion = r.fhirVersion.stringRepresentation
        sealedSourceURL = try r.sourceURL.map { try SealedText($0.absoluteString, sealer) }
        clinicalDate = c.clinicalDate?.date.timeIntervalSince1970
        clinicalDateText = c.clinicalDate?.text
        sealedData = try sealer.seal(r.data)
    }
}

/// Text stored as a blob: as it is when the store seals nothing (bound from the string's own
/// bytes), else sealed.
enum SealedText: Sendable {
    case plain(String)
    case sealed(Data)

    init(_ text: String, _ sealer: some RecordSealer) throws {
        self = sealer.storesPlainText ? .plain(text) : .sealed(try sealer.seal(Data(text.utf8)))
    }

    /// The bytes stored.
    var data: Data {
        switch self {
        case .plain(let text): return Data(text.utf8)
        case .sealed(let data): return data
        }
    }
}

extension SQLRowBinding {
    /// Binds stored text as a blob, valid while `body` runs (the row must run inside it).
    mutating func bind<T>(_ value: SealedText?, _ body: (inout Self) throws -> T) rethrows -> T {
        switch value {
        case nil:
            bindBlob(nil)
            return try body(&self)
        case .sealed(let data)?:
            return try bind(data, body)
        case .plain(let text)?:
            return try text.withUTF8Bytes { utf8 in
                bindBlob(utf8)
                return try body(&self)
            }
        }
    }
}

extension PreparedResource {
    /// Binds the resource's `resource` row, in the order of ``RecordBatches``' insert (the
    /// first-added anchor, identity, source, type, clinical type, id, display name, release,
    /// source URL, clinical date and its text, date added, anchor, digest, bytes, category),
    /// and runs it.
    func insertRow<Row: SQLRowBinding>(anchor: Int64, sourceID: Int64, now: Double, into row: inout Row) throws {
        row.bind(anchor)
        try row.bind(identity) { row in
            row.bind(sourceID)
            try row.bind(resourceType) { row in
                try row.bind(clinicalType?.rawValue) { row in
                    try row.bind(sealedIdentifier) { row in
                        try row.bind(sealedDisplayName) { row in
                            try row.bind(fhirVersion) { row in
                                try row.bind(sealedSourceURL) { row in
                                    row.bind(clinicalDate)
                                    try row.bind(clinicalDateText) { row in
                                        row.bind(now)
                                        row.bind(anchor)
                                        try row.bind(digest) { row in
                                            try row.bind(sealedData) { row in
                                                try row.bind(category) { row in try row.run() }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
