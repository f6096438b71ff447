import Foundation
import HealthStoreCore
import PostgresNIO

/// Turns PostgreSQL client errors into ``HealthStoreError``s that name the store by its
/// redacted URL (never its password); any other error (a producer's) passes through.
enum PostgresErrors {
    /// SQLSTATEs that mean another writer holds the person's lock, or the server gave up on a
    /// conflict: lock_not_available, deadlock_detected, serialization_failure, query_canceled.
    static let busyStates: Set<String> = ["55P03", "40P01", "40001", "57014"]

    static func map(_ error: any Error, location: String) -> any Error {
        if error is HealthStoreError { return error }
        if let e = error as? PSQLError {
            if e.code == .server, let state = e.serverInfo?[.sqlState] {
                if busyStates.contains(state) { return HealthStoreError.storeBusy(path: location) }
                return HealthStoreError.database("\(e.serverInfo?[.message] ?? "server error") (SQLSTATE \(state)) at \(location)")
            }
            return HealthStoreError.database("\(describe(e)) at \(location)")
        }
        if error is PostgresDecodingError { return HealthStoreError.corruptRecord("a column of \(location) has an unexpected type") }
        let name = String(describing: type(of: error))
        if name.contains("ConnectionPoolError") || error is ChannelError || error is IOError {
            return HealthStoreError.database("connection to \(location) failed: \(error)")
        }
        return error
    }

    /// Why a connection could not be made or used, without the query or configuration.
    static func describe(_ e: PSQLError) -> String {
        if let message = e.serverInfo?[.message] { return message }
        if let underlying = e.underlying { return "\(e.code): \(underlying)" }
        return "\(e.code)"
    }
}
