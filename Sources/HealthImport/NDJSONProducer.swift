import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// Streams an NDJSON file's resources into a store transaction, one line at a time.
final class NDJSONProducer: ResourceProducer, @unchecked Sendable {
    // Used by one consumer (the store's writer) at a time; see ResourceProducer.
    private var reader: NDJSONReader
    private let documents: FHIRDocumentReader
    private let builder: RecordBuilder
    private var pending: [ClassifiedResource] = []
    private(set) var linesRead = 0

    init(reader: consuming NDJSONReader, documents: FHIRDocumentReader, builder: RecordBuilder) {
        self.reader = reader
        self.documents = documents
        self.builder = builder
    }

    func next() throws -> ClassifiedResource? {
        while pending.isEmpty {
            let line: NDJSONReader.Line?
            do { line = try reader.next() } catch let e as FHIRError { throw ImportError.fhir(e) }
            guard let line else { return nil }
            linesRead += 1
            do {
                let content = try documents.read(line.data)
                pending = try builder.classify(content).reversed()
            } catch {
                if error == .notFHIR, linesRead == 1 { throw ImportError.notFHIR }
                throw ImportError.line(number: line.number, error: error)
            }
        }
        return pending.popLast()
    }
}
