import FHIR
import Foundation
import HealthVocabulary
import Logging
import Synchronization

/// A swift-log handler that writes one JSON object per line: `time`, `level`, `label`,
/// `message` and the metadata as string members — for log collectors. What is logged is
/// decided by the callers, which never log health data (see ``RequestLogMiddleware``).
public struct JSONLogHandler: LogHandler {
    /// Where lines go.
    public typealias Sink = @Sendable (String) -> Void

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let sink: Sink

    /// Makes a handler writing lines to a sink (standard error unless given).
    public init(label: String, sink: @escaping Sink = JSONLogHandler.standardError) {
        self.label = label
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var members: [JSONMember] = [
            JSONMember("time", .string(InstantText.string(Date()))), JSONMember("level", .string(event.level.rawValue)),
            JSONMember("label", .string(label)), JSONMember("message", .string(event.message.description)),
        ]
        for key in merged.keys.sorted() { members.append(JSONMember(key, .string(merged[key]!.description))) }
        sink(JSONWriter.minifiedString(.object(JSONObject(members))))
    }

    /// Writes a line to standard error.
    public static let standardError: Sink = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

extension HealthServer {
    /// The server's logger: JSON lines (`json`) or swift-log's text lines (`text`) on
    /// standard error, at a level.
    public static func logger(level: Logger.Level = .info, json: Bool = true) -> Logger {
        var logger = Logger(label: "healthrecords.server") { label in
            json ? JSONLogHandler(label: label) as any LogHandler : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = level
        return logger
    }
}

extension HealthServer {
    /// A log level by name (`info`…); `nil` for an unknown name.
    public static func logLevel(_ name: String) -> Logger.Level? { Logger.Level(rawValue: name.lowercased()) }
}
