import FHIR
import Foundation
import GRDB
import SampleSignatures
import Testing
import TestSupport

@Suite struct CLISampleTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }

    func json(_ r: CommandRunner.Result) throws -> JSONValue { try JSONReader().read(r.stdout) }

    /// Generates a key pair and certificate in the test folder.
    func generateKeys() throws {
        let r = try cli.run([
            "keys", "generate", "--p256", "--private", dir.path("key.pem"), "--public", dir.path("pub.pem"),
            "--certificate", dir.path("cert.pem"), "--subject", "CN=Glucose Meter Co, O=Example",
        ])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Adds a sample and returns its JSON.
    func add(_ arguments: [String]) throws -> JSONValue {
        let r = try cli.run(["samples", "add"] + arguments + ["--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return try json(r)
    }

    @Test func keysGenerateWritesAUsableP256KeyPairAndCertificate() throws {
        try generateKeys()
        let key = try DeviceSigningKey(pemRepresentation: String(contentsOfFile: dir.path("key.pem"), encoding: .utf8))
        let pub = try DevicePublicKey(pemRepresentation: String(contentsOfFile: dir.path("pub.pem"), encoding: .utf8))
        let certificate = try DeviceCertificate(pemRepresentation: String(contentsOfFile: dir.path("cert.pem"), encoding: .utf8))
        #expect(key.publicKey == pub)
        #expect(certificate.publicKey == pub)
        let permissions = try FileManager.default.attributesOfItem(atPath: dir.path("key.pem"))[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        // Existing files are kept unless --force.
        let again = try cli.run(["keys", "generate", "--p256", "--private", dir.path("key.pem"), "--public", dir.path("pub2.pem")])
        #expect(again.status == 2)
        #expect(again.stderr.contains("--force"))
        #expect(try DeviceSigningKey(pemRepresentation: String(contentsOfFile: dir.path("key.pem"), encoding: .utf8)).publicKey == pub)
    }

    /// Without `--p256`, `keys generate` makes an issuer JWKS (see CLIIssueTests); a device
    /// certificate still needs `--p256`.
    @Test func keysGenerateCertificateWithoutP256IsAUsageError() throws {
        let r = try cli.run(["keys", "generate", "--private", dir.path("k.json"), "--public", dir.path("jwks.json"), "--certificate", dir.path("c.pem")])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--certificate needs --p256"))
        #expect(!FileManager.default.fileExists(atPath: dir.path("k.json")))
        #expect(try cli.run(["keys", "generate", "--p256", "--private", dir.path("a"), "--public", dir.path("b"), "--subject", "CN=x"]).status == 2)
    }

    @Test func addsListsAndFiltersSamplesAsJSON() throws {
        let glucose = try add([
            "--type", "blood-glucose", "--value", "5.40", "--unit", "mmol/L", "--start", "2026-03-14T08:30:00.250Z", "--device", "GMC-1",
            "--metadata", "HKMetadataKeyBloodGlucoseMealTime=1",
        ])
        #expect(glucose["value"]?.stringValue == "5.40")
        #expect(glucose["typeIdentifier"]?.stringValue == "HKQuantityTypeIdentifierBloodGlucose")
        #expect(glucose["startDate"]?.stringValue == "2026-03-14T08:30:00.250Z")
        #expect(glucose["endDate"]?.stringValue == "2026-03-14T08:30:00.250Z")
        #expect(glucose["device"]?["identifier"]?.stringValue == "GMC-1")
        #expect(glucose["metadata"]?["HKMetadataKeyBloodGlucoseMealTime"]?.stringValue == "1")
        #expect(glucose["signature"]?.stringValue == "unsigned")
        _ = try add(["--type", "heart-rate", "--value", "72", "--unit", "/min", "--start", "2026-03-15T10:00:00Z", "--end", "2026-03-15T10:01:00Z"])
        _ = try add(["--type", "HKQuantityTypeIdentifierBodyMass", "--value", "72.5", "--unit", "kg", "--start", "2026-04-01"])

        let all = try json(try cli.run(["samples", "--json"]))
        #expect(all.arrayValue?.map { $0["type"]?.stringValue } == ["blood-glucose", "heart-rate", "body-mass"])
        let first = try #require(all[0]?.objectValue)
        #expect(first.keys == [
            "id", "type", "typeIdentifier", "value", "unit", "startDate", "endDate", "source", "sourceName", "device", "metadata", "signature",
            "addedDate", "anchor",
        ])
        let march = try json(try cli.run(["samples", "--from", "2026-03", "--to", "2026-03", "--json"]))
        #expect(march.arrayValue?.count == 2)
        let heart = try json(try cli.run(["samples", "--type", "heart-rate", "--json"]))
        #expect(heart.arrayValue?.map { $0["value"]?.stringValue } == ["72"])
        let table = try cli.run(["samples"])
        #expect(table.status == 0)
        #expect(table.output.contains("3 samples"))
        #expect(table.output.contains("72.5"))
    }

    @Test func rejectsBadSamplesWithUsageErrors() throws {
        let base = ["samples", "add", "--type", "blood-glucose", "--start", "2026-03-14"]
        let unit = try cli.run(base + ["--value", "5.4", "--unit", "kg"])
        #expect(unit.status == 2)
        #expect(unit.stderr.contains("unit \"kg\" is not accepted for blood-glucose"))
        let value = try cli.run(base + ["--value", "5.4e0", "--unit", "mmol/L"])
        #expect(value.status == 2)
        #expect(value.stderr.contains("exponent"))
        #expect(try cli.run(base + ["--value", "5.4", "--unit", "mmol/L", "--sign-key", dir.path("none.pem")]).status == 2)
        #expect(try cli.run(["samples", "add", "--type", "nonsense", "--value", "1", "--unit", "x", "--start", "2026"]).status == 2)
        #expect(try cli.run(base + ["--value", "5.4", "--unit", "mmol/L", "--end", "2026-03-13"]).status == 2)
        let missingKey = try cli.run(base + ["--value", "5.4", "--unit", "mmol/L", "--device", "D", "--sign-key", dir.path("none.pem")])
        #expect(missingKey.status == 2)
        #expect(missingKey.stderr.contains("none.pem"))
        #expect(try cli.run(["samples", "verify"]).status == 2)
        #expect(try json(try cli.run(["samples", "--json"])).arrayValue?.isEmpty == true)
    }

    /// The acceptance test: a stored value changed in the database file is reported tampered by
    /// `samples verify`, naming the field; an untouched signed sample stays valid; a sample with a
    /// garbage signature is stored and reported invalid with its reason.
    @Test func samplesVerifyFindsTamperingInTheDatabaseFile() throws {
        try generateKeys()
        let common = ["--type", "blood-glucose", "--unit", "mmol/L", "--device", "GMC-0042-7781", "--sign-key", dir.path("key.pem")]
        let tampered = try add(common + ["--value", "5.40", "--start", "2026-03-14T08:30:00.250Z", "--metadata", "HKWasUserEntered=0"])
        let untouched = try add(common + [
            "--value", "6.20", "--start", "2026-03-14T12:00:00Z", "--certificate", dir.path("cert.pem"), "--signed-attributes",
        ])
        #expect(tampered["signature"]?.stringValue == "present")
        #expect(untouched["signature"]?.stringValue == "present")
        let garbage = try cli.run([
            "samples", "add", "--type", "heart-rate", "--value", "61", "--unit", "/min", "--start", "2026-03-14T13:00:00Z",
            "--metadata", "HKMetadataKeyDigitalSignature=bm90IGEgc2lnbmF0dXJl", "--json",
        ])
        #expect(garbage.status == 0)
        #expect(garbage.stderr.contains("warning: the signature is malformed"))
        #expect(try json(garbage)["signature"]?.stringValue?.hasPrefix("malformed: ") == true)
        _ = try add(["--type", "body-mass", "--value", "80", "--unit", "kg", "--start", "2026-03-14"])

        let before = try cli.run(["samples", "verify", "--key", dir.path("pub.pem")])
        #expect(before.status == 1)  // the garbage signature is invalid already
        #expect(before.output.contains("2 valid, 0 tampered, 1 invalid, 1 unsigned"))

        // Change the stored value behind the store's back (the plain sealer stores it as text).
        let uuid = try #require(tampered["id"]?.stringValue)
        let queue = try DatabaseQueue(path: dir.path("store.sqlite"))
        let changed = try queue.write { db -> Int in
            try db.execute(sql: "UPDATE quantity_sample SET value = ? WHERE value = ?", arguments: [Data("6.10".utf8), Data("5.40".utf8)])
            return db.changesCount
        }
        #expect(changed == 1)
        try queue.close()

        for trust in [["--key", dir.path("pub.pem")], ["--certificate", dir.path("cert.pem")]] {
            let r = try cli.run(["samples", "verify", "--json"] + trust)
            #expect(r.status == 1)
            let report = try json(r)
            let results = try #require(report["results"]?.arrayValue)
            let byUUID = Dictionary(uniqueKeysWithValues: results.map { ($0["id"]?.stringValue ?? "", $0) })
            #expect(byUUID[uuid]?["result"]?.stringValue == "tampered")
            #expect(byUUID[uuid]?["fields"]?.arrayValue == [.string("value")])
            #expect(byUUID[uuid]?["value"]?.stringValue == "6.10")
            #expect(byUUID[untouched["id"]?.stringValue ?? ""]?["result"]?.stringValue == "valid")
            let invalid = byUUID[try json(garbage)["id"]?.stringValue ?? ""]
            #expect(invalid?["result"]?.stringValue == "invalid")
            #expect(invalid?["reason"]?.stringValue?.contains("malformed DER") == true)
            #expect(report["valid"]?.numberValue?.intValue == 1)
            #expect(report["tampered"]?.numberValue?.intValue == 1)
            #expect(report["invalid"]?.numberValue?.intValue == 1)
            #expect(report["unsigned"]?.numberValue?.intValue == 1)
        }
        let table = try cli.run(["samples", "verify", "--key", dir.path("pub.pem")])
        #expect(table.output.contains("tampered"))
        #expect(table.output.contains("stored value differs from the signed content"))

        // Another maker's key trusts none of them.
        #expect(try cli.run(["keys", "generate", "--p256", "--private", dir.path("k2.pem"), "--public", dir.path("p2.pem")]).status == 0)
        let stranger = try json(try cli.run(["samples", "verify", "--key", dir.path("p2.pem"), "--type", "blood-glucose", "--json"]))
        #expect(stranger["invalid"]?.numberValue?.intValue == 2)
        #expect(stranger["results"]?[0]?["reason"]?.stringValue?.contains("no signer in the message matches") == true)

        // Only valid samples: exit 0.
        let validOnly = try cli.run(["samples", "verify", "--key", dir.path("pub.pem"), "--from", "2026-03-14T11:00:00Z", "--to", "2026-03-14T12:30:00Z"])
        #expect(validOnly.status == 0, "\(validOnly.output)")
    }

    @Test func verifiesWithAJWKAndADERPublicKey() throws {
        try generateKeys()
        _ = try add([
            "--type", "oxygen-saturation", "--value", "97", "--unit", "%", "--start", "2026-03-14T08:00:00Z", "--device", "OX-1",
            "--sign-key", dir.path("key.pem"),
        ])
        let pub = try DevicePublicKey(pemRepresentation: String(contentsOfFile: dir.path("pub.pem"), encoding: .utf8))
        try dir.write("pub.jwk", pub.jwkRepresentation)
        try dir.write("pub.der", Data(pub.derRepresentation))
        for file in ["pub.jwk", "pub.der"] {
            let r = try cli.run(["samples", "verify", "--key", dir.path(file)])
            #expect(r.status == 0, "\(file): \(r.stderr)")
            #expect(r.output.contains("1 valid"))
        }
        let openssl = try OpenSSLRunner()
        try openssl.runChecked(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"])
        try openssl.runChecked(["pkey", "-in", "p384.pem", "-pubout", "-out", "p384-pub.pem"])
        let bad = try cli.run(["samples", "verify", "--key", openssl.path("p384-pub.pem")])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("curve 1.3.132.0.34 is not P-256"))
    }
}
