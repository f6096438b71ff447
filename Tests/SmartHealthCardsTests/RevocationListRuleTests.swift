import ByteEncodings
import FHIR
import Foundation
import SmartHealthCards
import TestSupport
import Testing
import VerifiableRecords

/// A revocation list that lists a rid twice, or lists something that is no rid, is an issuer
/// error a verifier must not paper over: which entry wins is a guess, and a malformed entry may
/// be a rid the issuer meant to revoke.
@Suite struct RevocationListRuleTests {
    static func listJSON(_ rids: [String], kid: String = Spec.kidCRL) -> Data {
        let list = JSONObject([
            "kid": .string(kid), "method": .string("rid"), "ctr": .number(JSONNumber(1)), "rids": .array(rids.map(JSONValue.string)),
        ])
        return Data(JSONWriter.minified(.object(list)))
    }

    static let duplicates: [[String]] = [
        ["abc", "abc"],
        ["abc", "abc.1636000000"],
        ["abc.1636000000", "abc"],
        ["abc.1636000000", "abc.1700000000"],
        ["FKDIxsTCGlU", "abc", "xyz.1", "abc.1636000000"],
    ]

    @Test(arguments: duplicates)
    func rejectsTheSameRidTwice(_ rids: [String]) throws {
        #expect {
            try RevocationList(data: Self.listJSON(rids))
        } throws: { error in
            guard case .ridDuplicate(let rid, let first, let second)? = error as? RevocationListError else { return false }
            return rid == "abc" && rids[first].hasPrefix("abc") && rids[second].hasPrefix("abc") && first < second
        }
    }

    @Test func keepsRidsThatDifferOnlyInCaseApart() throws {
        // base64url is case-sensitive: these are two different ids.
        let list = try RevocationList(data: Self.listJSON(["abc", "ABC.1636000000"]))
        #expect(list.entries == [.init(rid: "abc", timestamp: nil), .init(rid: "ABC", timestamp: 1_636_000_000)])
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let entry: String
        let problem: RevocationListError.RIDProblem
        var testDescription: String { "\"\(entry)\"" }
    }

    static let malformed: [Malformed] = [
        Malformed(entry: "", problem: .empty),
        Malformed(entry: ".1636000000", problem: .empty),
        Malformed(entry: "ab+c", problem: .notBase64URL(offset: 2)),
        Malformed(entry: "abc=", problem: .notBase64URL(offset: 3)),
        Malformed(entry: "ab c", problem: .notBase64URL(offset: 2)),
        Malformed(entry: String(repeating: "a", count: 25), problem: .tooLong(length: 25)),
        Malformed(entry: "abc.", problem: .timestamp("")),
        Malformed(entry: "abc.12x", problem: .timestamp("12x")),
        Malformed(entry: "abc.-1", problem: .timestamp("-1")),
        Malformed(entry: "abc.1e9", problem: .timestamp("1e9")),
        Malformed(entry: "abc.1636000000.5", problem: .timestamp("1636000000.5")),
    ]

    @Test(arguments: malformed)
    func rejectsMalformedRids(_ bad: Malformed) throws {
        #expect(throws: RevocationListError.ridMalformed(index: 1, entry: bad.entry, problem: bad.problem)) {
            try RevocationList(data: Self.listJSON(["FKDIxsTCGlU", bad.entry]))
        }
    }

    @Test func acceptsTheSpecList() throws {
        let list = try RevocationList(data: FixtureFiles.data("vectors/shc-spec/issuer/.well-known/crl/\(Spec.kidCRL).json"))
        #expect(list.entries.count == 4)
    }

    // MARK: Through the verifier

    /// The spec issuer's folder with its revocation list replaced.
    func issuerFolder(rids: [String], in dir: TemporaryDirectory) throws -> URL {
        _ = try dir.write(".well-known/jwks.json", try FixtureFiles.data("vectors/shc-spec/issuer/.well-known/jwks.json"))
        _ = try dir.write(".well-known/crl/\(Spec.kidCRL).json", Self.listJSON(rids))
        return dir.url
    }

    func codes(rids: [String]) async throws -> [VerificationCode] {
        let dir = TemporaryDirectory()
        let keys = IssuerFilesKeySource(issuer: Spec.issuer, directory: try issuerFolder(rids: rids, in: dir))
        let jws = try Spec.text("vectors/shc-spec/example-00-d-jws.txt")
        return await SmartHealthCardVerifier(keys: keys).verify(jws: jws, at: Spec.afterSigning).errors.map(\.code)
    }

    @Test func failsACardWhoseIssuerListsARidTwice() async throws {
        // Example 00's rid is MKyCxh7p6uQ: listed twice with timestamps that disagree on its fate.
        #expect(try await codes(rids: ["MKyCxh7p6uQ.1687450700", "MKyCxh7p6uQ.1687450800"]) == [.revocationRIDDuplicate])
        // Even when the duplicate is some other card's rid.
        #expect(try await codes(rids: ["abc", "abc.1636000000"]) == [.revocationRIDDuplicate])
    }

    @Test func failsACardWhoseIssuerListsAMalformedRid() async throws {
        #expect(try await codes(rids: ["MKyCxh7p6uQ.soon"]) == [.revocationRIDMalformed])
        #expect(try await codes(rids: ["MKyCxh7p6uQ/"]) == [.revocationRIDMalformed])
    }

    @Test func stillVerifiesAgainstAWellFormedList() async throws {
        #expect(try await codes(rids: ["abc", "ABC.1636000000", "MKyCxh7p6uQ.1687450700"]).isEmpty)
    }

    @Test func failsTheSameWayWithADirectorySnapshot() async throws {
        let key = try Spec.jwks.keys(withID: Spec.kidCRL)[0].json
        let crl = try JSONReader().read(Self.listJSON(["abc", "abc.1636000000"]))
        let snapshot = JSONObject([
            "issuerInfo": .array([.object(JSONObject([
                "issuer": .object(JSONObject(["iss": .string(Spec.issuer), "name": .string("Example")])),
                "keys": .array([.object(key)]),
                "crls": .array([crl]),
            ]))]),
        ])
        let directory = try IssuerDirectory(data: Data(JSONWriter.minified(.object(snapshot))))
        let verifier = SmartHealthCardVerifier(keys: directory.keySource, trust: TrustPolicy(directory: directory))
        let report = await verifier.verify(jws: try Spec.text("vectors/shc-spec/example-00-d-jws.txt"), at: Spec.afterSigning)
        #expect(report.errors.map(\.code) == [.revocationRIDDuplicate])
    }
}
