import Hummingbird

/// Routes anyone may call: the OpenAPI document, a health check and the style sheet.
struct PublicRoutes {
    let renderer: PageRenderer

    func register(on router: Router<HealthRequestContext>) {
        router.get("/openapi.json") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: renderer.openAPI))
        }
        router.get("/health") { _, _ -> Response in
            JSONResponse.make(.object([("status", .string("ok"))]))
        }
        // The liveness probe name orchestrators use; the FHIR benchmark measures against it.
        router.get("/healthz") { _, _ -> Response in
            JSONResponse.make(.object([("status", .string("ok"))]))
        }
        router.get("/static/style.css") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
                body: ResponseBody(byteBuffer: renderer.styleSheet))
        }
    }
}
