/// How much a zip archive may make the reader do: the caps that keep a zip bomb from filling
/// memory or disk.
public struct ZipLimits: Sendable, Hashable {
    /// The most entries an archive may have.
    public var maxEntries: Int
    /// The most bytes one entry may inflate to.
    public var maxEntryBytes: Int
    /// The most bytes all entries together may inflate to.
    public var maxTotalBytes: Int
    /// The most an entry may declare it inflates to per compressed byte. DEFLATE cannot do
    /// better than 1032:1, so a larger ratio is a lie told to make the reader allocate.
    public var maxRatio: Int

    /// Makes limits.
    public init(maxEntries: Int = 10_000, maxEntryBytes: Int = 1 << 30, maxTotalBytes: Int = 4 << 30, maxRatio: Int = 1032) {
        self.maxEntries = maxEntries
        self.maxEntryBytes = maxEntryBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxRatio = maxRatio
    }

    /// The defaults: 10,000 entries, 1 GiB per entry, 4 GiB in all.
    public static let `default` = ZipLimits()
}
