import FHIR
import Foundation
import Testing
import TestSupport

/// Encrypted stores through the command line: created encrypted, locked and unlocked,
/// wrong secrets, key rotation, converting a plain store.
@Suite struct CLIEncryptionTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner {
        CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite"), "XDG_RUNTIME_DIR": dir.url.path])
    }

    func with(_ env: [String: String]) -> CommandRunner {
        var runner = cli
        for (k, v) in env { runner.environment[k] = v }
        return runner
    }

    func files() throws -> Data {
        var all = try Data(contentsOf: URL(fileURLWithPath: dir.path("store.sqlite")))
        if let wal = FileManager.default.contents(atPath: dir.path("store.sqlite-wal")) { all += wal }
        return all
    }

    let patient = FixtureFiles.url("data/fhir/synthea/Antonio_Castellanos_6d2eba67-5b4a-403f-a29f-e6da3f1ea963.json").path

    @Test func aStoreMadeWithAPassphraseIsLockedUntilUnlocked() throws {
        let withPassphrase = with(["HEALTHRECORDS_PASSPHRASE": "river stone lamp"])
        #expect(try withPassphrase.run(["import", patient]).status == 0)
        for secret in ["Castellanos", "Hypertension", "resourceType"] {
            #expect(try files().range(of: Data(secret.utf8)) == nil, "\(secret)")
        }
        let locked = try cli.run(["records", "--type", "condition"])
        #expect(locked.status == 1)
        #expect(locked.stderr.hasPrefix("error: store locked:"))
        #expect(locked.output.isEmpty)
        let wrong = try with(["HEALTHRECORDS_PASSPHRASE": "wrong"]).run(["records"])
        #expect(wrong.status == 1 && wrong.stderr.contains("wrong passphrase or key file"))
        #expect(try withPassphrase.run(["unlock", "--key-file", Corpus.url("data/fhir/synthea").path]).status == 2)
        #expect(try with(["HEALTHRECORDS_PASSPHRASE": "wrong"]).run(["unlock"]).status == 1)

        #expect(try withPassphrase.run(["unlock"]).status == 0)
        let sessions = try FileManager.default.contentsOfDirectory(atPath: dir.path("healthrecords"))
        #expect(sessions.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.path("healthrecords/" + sessions[0]))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let listed = try cli.run(["records", "--type", "condition", "--json"])
        #expect(listed.status == 0)
        #expect(listed.output.contains("Hypertension"))

        #expect(try cli.run(["lock"]).status == 0)
        #expect(try cli.run(["records"]).status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("healthrecords")).isEmpty)
    }

    @Test func keyFilesRotationAndConversion() throws {
        let key1 = try dir.write("one.key", Data((0..<32).map { UInt8($0) }))
        let key2 = try dir.write("two.key", Data((0..<32).map { UInt8(255 - $0) }))
        #expect(try cli.run(["import", patient]).status == 0)
        #expect(try files().range(of: Data("Hypertension".utf8)) != nil)
        #expect(try cli.run(["records", "--key-file", key1]).status == 1)
        #expect(try cli.run(["encrypt", "--key-file", key1]).status == 0)
        #expect(try files().range(of: Data("Hypertension".utf8)) == nil)
        #expect(try cli.run(["encrypt", "--key-file", key1]).status == 1)
        #expect(try cli.run(["records"]).status == 1)
        let count = try cli.run(["records", "--key-file", key1, "--json"])
        #expect(try JSONReader().read(count.stdout).arrayValue?.count == 56)

        #expect(try cli.run(["unlock", "--key-file", key1]).status == 0)
        #expect(try cli.run(["rotate-key", "--new-key-file", key2]).status == 0)
        // The session holds the data key, which rotation keeps.
        #expect(try cli.run(["records", "--type", "condition"]).status == 0)
        #expect(try cli.run(["lock"]).status == 0)
        #expect(try cli.run(["records", "--key-file", key1]).status == 1)
        #expect(try cli.run(["records", "--key-file", key2]).status == 0)
        #expect(try with(["HEALTHRECORDS_NEW_PASSPHRASE": "new phrase"]).run(["rotate-key", "--key-file", key2]).status == 0)
        #expect(try with(["HEALTHRECORDS_PASSPHRASE": "new phrase"]).run(["sources"]).status == 0)
    }
}
