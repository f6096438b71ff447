import Hummingbird

/// The person's session cookie: `hr_session` over plain http (a server on this machine), and
/// `__Host-hr_session` with `Secure` when the public URL is https, so the browser never sends
/// it in clear and no subdomain can set or shadow it.
struct SessionCookie: Sendable {
    let name: String
    /// Where a proxy's own session waits while they act for someone (a server for many people).
    let homeName: String
    let secure: Bool

    init(publicBaseURL: String?) {
        secure = publicBaseURL?.lowercased().hasPrefix("https://") ?? false
        name = secure ? "__Host-hr_session" : "hr_session"
        homeName = secure ? "__Host-hr_home" : "hr_home"
    }

    /// The cookie to set (an empty value with age 0 removes it).
    func cookie(value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The cookie keeping a proxy's own session while they act for someone.
    func home(value: String, maxAge: Int) -> Cookie {
        Cookie(name: homeName, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
