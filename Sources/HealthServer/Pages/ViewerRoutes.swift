import Foundation
import Hummingbird

/// The SMART Health Link viewer (`/view`) for recipients who have only a browser: the one page
/// with JavaScript, under a policy of its own — scripts from this server only, fetches to any
/// sharing server (a link may point elsewhere), nothing inline, no frames, no forms sent
/// anywhere. It needs no sign-in: the link in its fragment is the credential, and the fragment
/// never reaches a server.
struct ViewerRoutes {
    let page: ByteBuffer
    let script: ByteBuffer

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src *; style-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    func register(on router: Router<HealthRequestContext>) {
        router.get("/view") { _, _ -> Response in
            var response = Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: page))
            PageHeaders.add(to: &response)
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            return response
        }
        router.get("/static/viewer.js") { _, _ -> Response in
            var response = Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "max-age=3600"], body: ResponseBody(byteBuffer: script))
            response.headers[HeaderName.contentTypeOptions] = "nosniff"
            return response
        }
    }
}
