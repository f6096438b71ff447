import ClinicalRecords
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import ServiceLifecycle

/// `GET /observe?types=…&anchor=…` — Server-Sent Events announcing new anchors (HealthKit's
/// observer query). Each event is
///
/// ```
/// id: ANCHOR
/// event: change
/// data: {"types":["lab-result"],"anchor":"ANCHOR"}
/// ```
///
/// where ANCHOR is the app's opaque anchor token (``AppView/anchorToken(_:)``).
///
/// sent only when a change is visible to the app (a denied type never fires, as in an empty
/// store). A client that reconnects with `Last-Event-ID` (or `anchor`) hears of what it
/// missed. Comments (`: keep-alive`) go out when idle, so a dead connection is noticed; the
/// stream ends when the server shuts down.
struct ObserveRoutes {
    let access: AppAccess
    let pollInterval: Duration
    let heartbeatInterval: Duration

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/observe") { request, context -> Response in
            let view = try context.app()
            var parameters = RequestParsing.parameters(request)
            let types = try parameters.clinicalTypes()
            // A reconnecting EventSource names where it was in Last-Event-ID; it wins over `anchor`.
            if let lastEventID = request.headers[HeaderName.lastEventID] { parameters.set(.anchor, lastEventID) }
            let anchor = try AnchorCoding.app(view).anchor(in: parameters)
            let (events, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
            guard let streamID = access.openStream(appID: view.app.id, revision: context.accessRevision, end: { sink.finish() }) else {
                throw APIError.conflict("too many open event streams")
            }
            // The starting anchor is read before the stream starts, so no change falls between.
            let start: QueryAnchor
            do {
                if let anchor { start = anchor } else { start = try await view.currentAnchor() }
            } catch {
                access.closeStream(appID: view.app.id, id: streamID)
                throw error
            }
            let changes = view.observe(types: types, after: start, pollInterval: pollInterval)
            let heartbeat = heartbeatInterval
            let poll = pollInterval
            let revision = context.accessRevision
            let access = self.access
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                defer { access.closeStream(appID: view.app.id, id: streamID) }
                try await withGracefulShutdownHandler {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await change in changes { sink.yield(Self.event(change, view: view)) }
                            sink.finish()
                        }
                        group.addTask {
                            while !Task.isCancelled {
                                try await Task.sleep(for: heartbeat)
                                sink.yield(": keep-alive\n\n")
                            }
                        }
                        group.addTask {
                            // A revocation from another process ends the stream within a poll.
                            while !Task.isCancelled {
                                try await Task.sleep(for: poll)
                                if await access.checkAccess(appID: view.app.id, revision: revision) == .revoked { sink.finish() }
                            }
                        }
                        try await writer.write(ByteBuffer(string: "retry: 2000\n: observing\n\n"))
                        for await text in events { try await writer.write(ByteBuffer(string: text)) }
                        group.cancelAll()
                    }
                } onGracefulShutdown: {
                    sink.finish()
                }
                try await writer.finish(nil)
            })
        }
    }

    /// One event: the changed types and the app's new anchor, as its opaque token.
    static func event(_ change: StoreChange, view: AppView) -> String {
        let token = view.anchorToken(change.anchor)
        let data = EncodedJSON.object([("types", .array(change.types.sorted().map { .string($0.name) })), ("anchor", .string(token))])
        return "id: \(token)\nevent: change\ndata: \(String(decoding: data.bytes, as: UTF8.self))\n\n"
    }
}
