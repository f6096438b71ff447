import FHIR
import Foundation
import HealthStoreCore
import SmartHealthCards
import VerifiableRecords

/// A card or DCC as one line of `cards/cards.ndjson`: the file that holds it as issued (a
/// `.smart-health-card` JSON, or a DCC's `HC1:` text), its kind, and the status it had in the
/// store that made the export (for people reading the export; import verifies again).
public struct CardLine: Sendable, Hashable {
    /// The card file's path in the archive.
    public var file: String
    /// `SMARTHealthCard` or `EUDigitalCOVIDCertificate`.
    public var sourceType: VerifiableClinicalRecord.SourceType
    /// The stored status: `verified` or `unverified`.
    public var status: String
    /// Whether the issuer was trusted (verified cards).
    public var trusted: Bool
    /// The failed checks' codes (unverified cards).
    public var codes: [String]

    /// Makes a line from a stored card.
    public init(file: String, card: StoredVerifiableRecord) {
        self.file = file
        self.sourceType = card.record.sourceType
        self.status = card.status.name
        switch card.status {
        case .verified(let trusted): self.trusted = trusted; self.codes = []
        case .unverified(let codes): self.trusted = false; self.codes = codes
        }
    }

    /// The line's JSON.
    public func encoded() -> [UInt8] {
        JSONWriter.minified(
            .object(
                JSONObject([
                    JSONMember("file", .string(file)), JSONMember("sourceType", .string(sourceType.rawValue)), JSONMember("status", .string(status)),
                    JSONMember("trusted", .bool(trusted)), JSONMember("codes", .array(codes.map { .string($0) })),
                ])))
    }

    /// Reads a line.
    public init(decoding line: [UInt8]) throws(ArchiveLineError) {
        let value: JSONValue
        do { value = try JSONReader().read(line) } catch { throw ArchiveLineError("not JSON: \(error)") }
        guard let o = value.objectValue, let file = o["file"]?.stringValue,
            let type = o["sourceType"]?.stringValue.flatMap(VerifiableClinicalRecord.SourceType.init(rawValue:)), let status = o["status"]?.stringValue
        else { throw ArchiveLineError("a card line needs file, sourceType and status") }
        self.file = file
        self.sourceType = type
        self.status = status
        self.trusted = o["trusted"]?.boolValue ?? false
        self.codes = o["codes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The bytes of a card's file: a `.smart-health-card` JSON for a card, the QR text for a DCC.
    public static func fileBytes(_ record: VerifiableClinicalRecord) -> [UInt8] {
        switch record.sourceType {
        case .smartHealthCard:
            return JSONWriter.minified(.object(JSONObject([JSONMember("verifiableCredential", .array([.string(record.jws)]))]))) + [0x0A]
        case .euDigitalCOVIDCertificate:
            return Array(record.dataRepresentation) + [0x0A]
        }
    }
}

/// A source as one line of `sources.ndjson`: the folder its resources are under, and the
/// identifier and name import files them under again.
public struct SourceLine: Sendable, Hashable {
    /// The folder under `resources/`.
    public var directory: String
    /// The source's identifier.
    public var identifier: String
    /// The source's name.
    public var name: String

    /// Makes a line.
    public init(directory: String, identifier: String, name: String) {
        self.directory = directory
        self.identifier = identifier
        self.name = name
    }

    /// The line's JSON.
    public func encoded() -> [UInt8] {
        JSONWriter.minified(
            .object(JSONObject([JSONMember("directory", .string(directory)), JSONMember("identifier", .string(identifier)), JSONMember("name", .string(name))])))
    }

    /// Reads a line.
    public init(decoding line: [UInt8]) throws(ArchiveLineError) {
        let value: JSONValue
        do { value = try JSONReader().read(line) } catch { throw ArchiveLineError("not JSON: \(error)") }
        guard let o = value.objectValue, let d = o["directory"]?.stringValue, let id = o["identifier"]?.stringValue, let name = o["name"]?.stringValue else {
            throw ArchiveLineError("a source line needs directory, identifier and name")
        }
        self.init(directory: d, identifier: id, name: name)
    }
}
