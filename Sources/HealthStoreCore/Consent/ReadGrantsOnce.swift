import Synchronization

/// An app's grants as the statement that checked a request's token read them, given out once.
///
/// The request's first look at the grants uses them instead of reading the store again a
/// moment later (one statement fewer per app request). A view can outlive its request (an
/// event stream polls with it for hours), so every later look reads the store: a grant changed
/// since is seen at the next poll, as before.
final class ReadGrantsOnce: Sendable {
    private let grants: Mutex<[ReadGrant]?>

    init(_ grants: [ReadGrant]) {
        self.grants = Mutex(grants)
    }

    /// The grants the first time; `nil` after.
    func take() -> [ReadGrant]? {
        grants.withLock { g in
            defer { g = nil }
            return g
        }
    }
}
