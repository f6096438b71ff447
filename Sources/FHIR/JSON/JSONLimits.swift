/// Bounds the JSON reader enforces so that hostile input cannot exhaust memory or stack.
public struct JSONLimits: Sendable, Hashable {
    /// The largest document, in bytes.
    public var maxDocumentBytes: Int
    /// The deepest nesting of arrays and objects.
    public var maxDepth: Int
    /// The longest string, in bytes of its JSON text.
    public var maxStringBytes: Int
    /// The most members or elements in one object or array.
    public var maxContainerElements: Int

    /// Makes custom limits; ``default`` is the set meant for health data.
    public init(maxDocumentBytes: Int, maxDepth: Int, maxStringBytes: Int, maxContainerElements: Int) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxContainerElements = maxContainerElements
    }

    /// Limits for health data: 256 MiB documents (a large Synthea bundle is a few MB),
    /// 128 levels (FHIR rarely nests past 10), 64 MiB strings (base64 attachments),
    /// 1,000,000 elements per container.
    public static let `default` = JSONLimits(
        maxDocumentBytes: 256 << 20, maxDepth: 128, maxStringBytes: 64 << 20, maxContainerElements: 1_000_000)
}
