import Foundation

/// Where a sync stands, saved after every stored page, so a sync killed at any moment
/// continues where it was: finished steps are not fetched again, a step under way resumes at
/// its next page, and a page stored twice changes nothing (the same bytes are left alone).
struct SyncCheckpoint: Sendable, Codable {
    /// A step and how far it got.
    struct StepState: Sendable, Codable {
        var step: DownloadStep
        var done = false
        /// The next page to fetch; `nil` before the first page.
        var next: URL?
        /// Asks for everything rather than changes (the server refused `_lastUpdated`).
        var ignoresSince = false
        /// The server refused the search to this client; its type is not judged for deletions.
        var skipped = false
        var pages = 0
        var resources = 0
    }

    /// A full download (deletions found), or changes since ``since``.
    var full: Bool
    /// The lower bound of an incremental sync (the last sync's start, less an overlap).
    var since: Date?
    /// The provider's clock when this sync began: the next sync's lower bound.
    var started: Date
    var steps: [StepState]
    /// `Type/id` of everything a full download has seen.
    var seen: Set<String>
}
