import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import Logging

/// One structured log line per request — method, route pattern, status, milliseconds, app
/// id. Nothing that could be health data is logged: not the path (it names sources and record
/// ids), not the query, not bodies, not error messages (``ErrorMappingMiddleware``, inside it,
/// has turned every error into a response error by then).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let logger: Logger
    /// How long a request may take before its line is a warning.
    static let slow: Duration = .milliseconds(500)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status: Int = 500
        defer {
            // Built only when it is written: the metadata and its formatting cost more than
            // some requests. A request slower than half a second is a warning: an operator who logs
            // only warnings still sees where a tail comes from.
            let elapsed = ContinuousClock.now - start
            if logger.logLevel <= .info || (logger.logLevel <= .warning && elapsed > Self.slow) {
                let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                var metadata: Logger.Metadata = [
                    "method": "\(request.method.rawValue)",
                    "route": "\(context.endpointPath ?? "unmatched")",
                    "status": "\(status)",
                    "ms": "\(String(format: "%.1f", ms))",
                ]
                if let app = context.facts.appID { metadata["app"] = "\(app)" }
                logger.log(level: elapsed > Self.slow ? .warning : .info, "request", metadata: metadata)
            }
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        } catch is CancellationError {
            status = 499
            throw CancellationError()
        }
    }
}
