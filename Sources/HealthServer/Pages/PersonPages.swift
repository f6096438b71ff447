import Hummingbird

/// The signed-in person's pages: rendered with the session's layout, and the one way their
/// forms are read — the body within its limit, then its anti-forgery token checked against the
/// session before any handler runs.
struct PersonPages: Sendable {
    let renderer: PageRenderer
    /// The largest form body read.
    let formLimit: Int
    /// The largest upload read.
    let uploadLimit: Int

    /// A page for the person signed in on `context`.
    func page(_ context: HealthRequestContext, _ content: some PageContent, status: HTTPResponse.Status = .ok) -> Response {
        renderer.page(content, session: context.session, status: status)
    }

    /// A page saying one thing.
    func message(_ context: HealthRequestContext, _ title: String, _ message: String, status: HTTPResponse.Status = .ok) -> Response {
        page(context, MessagePage(title: title, message: message), status: status)
    }

    /// 404, as a page.
    func notFound(_ context: HealthRequestContext) -> Response {
        message(context, "Not found", "There is nothing here. It may have expired or been answered.", status: .notFound)
    }

    /// A form post: `handler` runs only for a form carrying the session's token.
    func post(
        _ group: RouterGroup<HealthRequestContext>, _ path: RouterPath,
        _ handler: @escaping @Sendable (FormFields, HealthRequestContext) async throws -> Response
    ) {
        let limit = formLimit
        group.post(path) { request, context -> Response in
            let form = try await FormFields.read(request, limit: limit)
            try Self.checkForm(token: form["csrf"], context.session)
            return try await handler(form, context)
        }
    }

    /// A multipart upload: `unreadable` answers a body that is not one; `handler` runs only
    /// for an upload carrying the session's token.
    func upload(
        _ group: RouterGroup<HealthRequestContext>, _ path: RouterPath,
        unreadable: @escaping @Sendable (MultipartForm.Failure, HealthRequestContext) -> Response,
        _ handler: @escaping @Sendable (MultipartForm, HealthRequestContext) async throws -> Response
    ) {
        let limit = uploadLimit
        group.post(path) { request, context -> Response in
            let form: MultipartForm
            do { form = try await MultipartForm.read(request, limit: limit) } catch let e as MultipartForm.Failure { return unreadable(e, context) }
            try Self.checkForm(token: form["csrf"], context.session)
            return try await handler(form, context)
        }
    }

    /// The anti-forgery check: the token a form sent against its session's.
    static func checkForm(token sent: String?, _ session: PersonSession?) throws(PageError) {
        guard let session, let sent, SecretToken.equal(sent, session.csrfToken) else { throw .forgedForm }
    }
}
