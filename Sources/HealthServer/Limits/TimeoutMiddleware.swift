import Hummingbird

/// Fails a request with 503 when its handler has not produced a response in time. The
/// response body is not timed: an event stream, once started, runs until the client leaves.
/// The deadline waits on the server's one clock (``RequestDeadlines``), not a timer of its own.
struct TimeoutMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let deadlines: RequestDeadlines

    init(deadlines: RequestDeadlines) {
        self.deadlines = deadlines
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withoutActuallyEscaping(next) { next in
            let work = UnsafeNext(next: next)
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await work.next(request, context) }
                let deadlines = self.deadlines
                group.addTask {
                    // Cancelled when the handler answers first (then this is never read) or
                    // when the request is.
                    guard await deadlines.expired() else { throw CancellationError() }
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else { throw APIError.timedOut }
                return response
            }
        }
    }
}

/// The next responder, carried into a child task. It is only called while `handle` waits for
/// the group, which ends before `handle` returns.
private struct UnsafeNext: @unchecked Sendable {
    let next: (Request, HealthRequestContext) async throws -> Response
}
