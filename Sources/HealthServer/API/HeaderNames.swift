import Hummingbird

/// Header names the server uses beyond the common ones.
enum HeaderName {
    typealias Name = HTTPFields.Element.Name
    static let frameOptions = Name("X-Frame-Options")!
    static let contentTypeOptions = Name("X-Content-Type-Options")!
    static let referrerPolicy = Name("Referrer-Policy")!
    static let pragma = Name("Pragma")!
    static let lastEventID = Name("Last-Event-ID")!
}
