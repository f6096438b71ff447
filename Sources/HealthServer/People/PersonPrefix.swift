import HealthStoreCore

/// What begins every secret a person's server hands out in a server for many people — session
/// cookies, SMART codes, access and refresh tokens: `<id>.`, their person's id and a dot.
///
/// It is only a hint of whose store to look in, so a request at the root (a browser, or an app
/// at the shared SMART base) reaches that person's server; their server checks the whole value
/// against their own store, where a value with another person's prefix is found nowhere.
enum PersonPrefix {
    /// The prefix for a served person (`""` when the server serves one person alone).
    static func make(_ person: String?) -> String { person.map { $0 + "." } ?? "" }

    /// The person a value begins with; `nil` when it begins with no valid id.
    static func person(of value: String) -> String? {
        guard let dot = value.firstIndex(of: ".") else { return nil }
        let id = String(value[..<dot])
        return PersonEntry.isValidID(id) ? id : nil
    }
}
