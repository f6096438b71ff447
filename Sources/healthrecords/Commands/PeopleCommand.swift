import ArgumentParser
import Foundation
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
        commandName: "people", abstract: "The people of a server with many: add, list, remove.",
        discussion: """
            Each person has a store of their own: DIR/<id>.sqlite with --people DIR, or their rows \
            of a PostgreSQL database. Store commands reach one with --people DIR --person ID (or \
            --postgres URL --person ID).
            """,
        subcommands: [PeopleAddCommand.self, PeopleListCommand.self, PeopleRemoveCommand.self], defaultSubcommand: PeopleListCommand.self)
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
            guard readLine()?.trimmingCharacters(in: .whitespaces) == entry.id else { throw CommandFailure.failed("not removed") }
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
