/// Whether a manifest file may change: the file's `status`.
public enum SHLFileStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// `finalized`: the file will not change.
    case finalized
    /// `can-change`: the file may be updated (an `L` link's files, typically).
    case canChange = "can-change"
    /// `no-longer-valid`: the file should no longer be relied on.
    case noLongerValid = "no-longer-valid"
}
