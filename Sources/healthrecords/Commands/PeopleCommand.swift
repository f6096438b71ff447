import ArgumentParser
import Foundation
import HealthServer
import HealthStoreCore
import HealthVocabulary
import HealthStorePostgres
import HealthStoreSQLite

/// Where the people of a server are: a folder of SQLite stores, or a PostgreSQL database.
struct PeopleOptions: ParsableArguments {
    @Option(name: .long, help: "A folder of people's SQLite stores (made when missing).")
    var people: String?

    @Option(name: .long, help: "A PostgreSQL database of people: postgres://user@host:port/database (without person=).")
    var postgres: String?

    func validate() throws {
        if (people == nil) == (postgres == nil) { throw ValidationError("give --people DIR or --postgres URL") }
    }

    func registry() throws -> any PeopleRegistry {
        do {
            if let people { return try SQLitePeople(directory: people) }
            var url = try PostgresStoreURL(postgres ?? "")
            guard url.person == nil else { throw CommandFailure.usage("the URL names one person (person=); people live in the whole database") }
            if url.password == nil, let p = ProcessInfo.processInfo.environment["PGPASSWORD"], !p.isEmpty { url.password = p }
            return PostgresPeople(database: try PostgresHealthDatabase(url: url))
        } catch let error as HealthStoreError {
            throw CommandFailure.usage(error.description)
        }
    }
}

struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people", abstract: "The people of a server with many: add, list, remove, invite.",
        discussion: """
            Each person has a store of their own: DIR/<id>.sqlite with --people DIR, or their rows \
            of a PostgreSQL database. Store commands reach one with --people DIR --person ID (or \
            --postgres URL --person ID).
            """,
        subcommands: [PeopleAddCommand.self, PeopleListCommand.self, PeopleRemoveCommand.self, PeopleInviteCommand.self], defaultSubcommand: PeopleListCommand.self)
}

struct PeopleAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a person with an empty store; prints their id.")

    @OptionGroup var options: PeopleOptions

    @Argument(help: "The person's name, as the operator knows them.")
    var name: String

    @Flag(help: "Print machine-readable JSON ({\"id\": …, \"name\": …}).")
    var json = false

    func run() async throws {
        let entry: PersonEntry
        do { entry = try await options.registry().add(name: name) } catch let error as HealthStoreError { throw CommandFailure.usage(error.description) }
        if json {
            JSONOutput.print(entry.json)
        } else {
            print("added \(entry.name): \(entry.id)")
        }
    }
}

struct PeopleListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the people, oldest first.")

    @OptionGroup var options: PeopleOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let people = try await options.registry().list()
        if json {
            JSONOutput.print(.array(people.map(\.json)))
            return
        }
        var table = TextTable("id", "name", "added")
        for p in people { table.add(p.id, p.name, String(ISO8601DateFormatter().string(from: p.created).prefix(10))) }
        print(table.rendered)
        print("\(people.count) \(people.count == 1 ? "person" : "people")")
    }
}

struct PeopleRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a person and all their data (asks first).",
        discussion: "Only that person's store is removed. Without --yes, type the person's id to confirm.")

    @OptionGroup var options: PeopleOptions

    @Argument(help: "The person's id.")
    var id: String

    @Flag(help: "Do not ask.")
    var yes = false

    func run() async throws {
        let registry = try options.registry()
        guard let entry = try await registry.entry(id: id) else { throw CommandFailure.failed("no person \(id) here (see `healthrecords people list`)") }
        if !yes {
            FileHandle.standardError.write(Data("This removes \(entry.name) (\(entry.id)) and every record of theirs. Type \(entry.id) to confirm: ".utf8))
            guard let answer = readLine() else {
                throw CommandFailure.failed("not removed: no answer on standard input (--yes removes without asking)")
            }
            guard answer.trimmingCharacters(in: .whitespaces) == entry.id else {
                throw CommandFailure.failed("not removed: the answer was not \(entry.id); nothing changed")
            }
        }
        guard try await registry.remove(id: id) else { throw CommandFailure.failed("no person \(id) here") }
        print("removed \(entry.name) (\(entry.id)) and their records")
    }
}

extension PersonEntry {
    var json: EncodedJSON {
        .object([("id", .string(id)), ("name", .string(name)), ("added", .string(ISO8601DateFormatter().string(from: created)))])
    }
}

struct PeopleInviteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite", abstract: "A one-time enrolment link for a person: it signs them in once, to add a passkey.",
        discussion: "The link is on --public-url (the address the person's server is reached at) and expires after --hours (default 24).")

    @OptionGroup var options: PeopleOptions

    @Argument(help: "The person's id.")
    var id: String

    @Option(name: .long, help: "The server's public URL, e.g. https://health.example.")
    var publicURL: String

    @Option(name: .long, help: "How many hours the link works (1 to 168).")
    var hours = 24

    @Option(name: .long, help: "A key file that unlocks the person's store, if it is encrypted.")
    var keyFile: String?

    @Flag(help: "Print machine-readable JSON ({\"url\": …, \"expires\": …}).")
    var json = false

    func validate() throws {
        guard (1...168).contains(hours) else { throw ValidationError("--hours is 1 to 168") }
        guard let url = URL(string: publicURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--public-url must be an http(s) URL with a host")
        }
    }

    func run() async throws {
        guard try await options.registry().entry(id: id) != nil else { throw CommandFailure.failed("no person \(id) here (see `healthrecords people list`)") }
        var arguments = options.people.map { ["--people", $0] } ?? ["--postgres", options.postgres ?? ""]
        arguments += ["--person", id] + (keyFile.map { ["--key-file", $0] } ?? [])
        let store = try await StoreOptions.parse(arguments).open()
        let invite = try await EnrolmentInvite.issue(in: store, publicURL: publicURL, person: id, lifetime: TimeInterval(hours) * 3600)
        if json {
            JSONOutput.print(.object([("url", .string(invite.url)), ("expires", .string(ISO8601DateFormatter().string(from: invite.expires)))]))
        } else {
            print(invite.url)
            print("works once, until \(ISO8601DateFormatter().string(from: invite.expires))")
        }
    }
}
