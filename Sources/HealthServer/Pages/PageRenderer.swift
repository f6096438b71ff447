import Foundation
import Hummingbird
import Mustache

/// Why the server could not start.
public enum ServerSetupError: Error, Sendable, CustomStringConvertible {
    /// A bundled resource (templates, style sheet, OpenAPI document) is missing.
    case missingResource(String)
    /// A template does not parse.
    case badTemplate(String)

    public var description: String {
        switch self {
        case .missingResource(let name): return "the server's resource \(name) is missing from the bundle"
        case .badTemplate(let why): return "a page template does not parse: \(why)"
        }
    }
}

/// The person's pages: Mustache templates bundled with the target (`Resources/Templates`),
/// rendered on the server; values are HTML-escaped by `{{…}}`. Every page works without
/// JavaScript and fits a phone-width screen (one column, no wide tables).
struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let styleSheet: ByteBuffer
    let openAPI: ByteBuffer
    /// The link viewer's page and script (`/view`).
    let viewerPage: ByteBuffer
    let viewerScript: ByteBuffer
    /// The passkey ceremonies' script (the sign-in and passkey pages).
    let passkeyScript: ByteBuffer

    /// Loads the bundled templates, style sheet and OpenAPI document.
    static func load() async throws -> PageRenderer {
        guard let resources = Bundle.module.url(forResource: "Resources", withExtension: nil) else {
            throw ServerSetupError.missingResource("Resources")
        }
        let library: MustacheLibrary
        do {
            library = try await MustacheLibrary(directory: resources.appendingPathComponent("Templates").path)
        } catch {
            throw ServerSetupError.badTemplate("\(error)")
        }
        func read(_ name: String) throws -> ByteBuffer {
            guard let data = try? Data(contentsOf: resources.appendingPathComponent(name)) else { throw ServerSetupError.missingResource(name) }
            return ByteBuffer(bytes: data)
        }
        return PageRenderer(
            library: library, styleSheet: try read("static/style.css"), openAPI: try read("openapi.json"), viewerPage: try read("static/viewer.html"),
            viewerScript: try read("static/viewer.js"), passkeyScript: try read("static/passkeys.js"))
    }

    /// An HTML page; `session` is the signed-in person's (its forms carry its token), `nil` on
    /// the pages of someone not signed in.
    func page<Content: PageContent>(_ content: Content, session: PersonSession?, status: HTTPResponse.Status = .ok) -> Response {
        let frame = PageFrame(content: content, signedIn: session != nil, csrf: session?.csrfToken ?? "", proxy: session?.proxy)
        let html = library.render(frame, withTemplate: Content.template) ?? "<!doctype html><title>Error</title><p>Missing page template."
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// A redirect after a form post (303, so the browser follows with GET).
    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
