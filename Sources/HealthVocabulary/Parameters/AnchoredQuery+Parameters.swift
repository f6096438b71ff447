import HealthStoreCore

extension AnchoredQuery {
    /// The names an anchored query reads.
    public static let parameterNames: [ParameterName] = [.type, .anchor, .limit]

    /// Reads an anchored query (HealthKit's anchored object query): what changed since an
    /// anchor, one page at a time.
    ///
    /// - `type`: a clinical type; every type when absent.
    /// - `anchor`: the anchor of the previous page, as `anchors` wrote it; from the start when
    ///   absent.
    /// - `limit`: the most changes in this page, cut to `limitCap`; the answer's anchor resumes
    ///   after the last change returned.
    public init(parameters p: QueryParameters, anchors: AnchorCoding, limitCap: Int? = nil) throws(ParameterError) {
        self.init(type: try p.clinicalType(), anchor: try anchors.anchor(in: p), limit: try p.limit(cap: limitCap))
    }
}
