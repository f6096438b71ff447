import Foundation

/// A value bound to a statement. Each case keeps its column type even when `nil`, because
/// PostgreSQL must know the type of a NULL it is sent.
package enum SQLValue: Sendable, Hashable {
    case int(Int64?)
    case double(Double?)
    case text(String?)
    case blob(Data?)
}

/// A value read from a result row.
package enum SQLCell: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
}
