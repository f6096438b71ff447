import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import Logging

/// One structured log line per request — method, route pattern, status, milliseconds, app
/// id — and the mapping of parameter and store errors to responses. Nothing that could be health data is
/// logged: not the path (it names sources and record ids), not the query, not bodies, not
/// error messages from the store (only their kind).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status: Int = 500
        defer {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            var metadata: Logger.Metadata = [
                "method": "\(request.method.rawValue)",
                "route": "\(context.endpointPath ?? "unmatched")",
                "status": "\(status)",
                "ms": "\(String(format: "%.1f", ms))",
            ]
            if let app = context.facts.appID { metadata["app"] = "\(app)" }
            logger.info("request", metadata: metadata)
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        } catch let error as ParameterError {
            // A bad parameter, as the vocabulary read it: the message names it and its value.
            let mapped = APIError.invalidRequest(error.message())
            status = mapped.status.code
            throw mapped
        } catch let error as HealthStoreError {
            let mapped: APIError
            switch error {
            case .invalidArgument(let m): mapped = .invalidRequest(m)
            default: mapped = .unavailable
            }
            logger.error("store error", metadata: ["kind": "\(Self.kind(error))"])
            status = mapped.status.code
            throw mapped
        } catch is CancellationError {
            status = 499
            throw CancellationError()
        } catch {
            logger.error("unexpected error", metadata: ["type": "\(type(of: error))"])
            status = 500
            throw APIError.unavailable
        }
    }

    /// The case name of a store error, without its message.
    static func kind(_ e: HealthStoreError) -> String {
        switch e {
        case .cannotOpen: return "cannotOpen"
        case .unknownSchema: return "unknownSchema"
        case .storeBusy: return "storeBusy"
        case .database: return "database"
        case .invalidArgument: return "invalidArgument"
        case .corruptRecord: return "corruptRecord"
        case .sampleConflict: return "sampleConflict"
        case .storeLocked: return "storeLocked"
        case .wrongPassphrase: return "wrongPassphrase"
        case .notEncrypted: return "notEncrypted"
        case .alreadyEncrypted: return "alreadyEncrypted"
        case .unreadableSealedValue: return "unreadableSealedValue"
        }
    }
}
