import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import Logging

/// Turns what handlers throw into responses: a bad parameter (as the vocabulary read it) or a
/// store's invalid argument into 400 naming it, any other store error or anything unexpected
/// into 503 without detail. Store errors are logged by kind only, never with their message
/// (it may quote health data).
struct ErrorMappingMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as ParameterError {
            throw APIError.invalidRequest(error.message())
        } catch let error as HealthStoreError {
            logger.error("store error", metadata: ["kind": "\(Self.kind(error))"])
            if case .invalidArgument(let m) = error { throw APIError.invalidRequest(m) }
            throw APIError.unavailable
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.error("unexpected error", metadata: ["type": "\(type(of: error))"])
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
