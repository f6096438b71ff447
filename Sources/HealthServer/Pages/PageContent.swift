import Mustache

/// What one page shows: a value whose stored properties are exactly what its template names,
/// so a misspelt or missing field is a compile error, not a blank on the page.
protocol PageContent: Sendable {
    /// The template (in `Resources/Templates`) that renders it.
    static var template: String { get }
    /// The page's title: the document title, and the heading of most pages.
    var title: String { get }
}

/// A page as rendered: its content, and the layout's own fields (whether someone is signed in,
/// and the anti-forgery token of the session's forms) that every template's header reads.
struct PageFrame<Content: PageContent>: MustacheParent {
    let content: Content
    let signedIn: Bool
    let csrf: String
    /// In a proxy's session: who acts, and for whom (the banner every page shows them).
    var proxy: ProxyActor? = nil

    func child(named name: String) -> Any? {
        switch name {
        case "signedIn": return signedIn
        case "csrf": return csrf
        case "proxyName": return proxy?.name
        case "actingFor": return proxy.map { $0.actingFor.isEmpty ? "someone" : $0.actingFor }
        default: return Self.field(name, of: content)
        }
    }

    /// A stored property of a value by name; an optional's value when it has one, else `nil`
    /// (so `{{#field}}` sections treat `nil` as absent, as Mustache does).
    static func field(_ name: String, of value: Any) -> Any? {
        guard let child = Mirror(reflecting: value).children.first(where: { $0.label == name }) else { return nil }
        let wrapped = Mirror(reflecting: child.value)
        guard wrapped.displayStyle == .optional else { return child.value }
        return wrapped.children.first?.value
    }
}

/// A page that says one thing: done, not found, signed out.
struct MessagePage: PageContent {
    static let template = "message"
    let title: String
    let message: String
}
