import ByteEncodings
import FHIR
import Foundation
import SMARTAuthorization
import Testing
import TestSupport

/// Client keys made by the real `openssl` in every PEM form a user may have, read, used to sign
/// assertions, and the assertions checked both by this project's verifier and by openssl.
@Suite struct ClientSigningKeyOpenSSLTests {
    let openssl: OpenSSLRunner
    init() throws { openssl = try OpenSSLRunner() }

    let tokenEndpoint = URL(string: "https://ehr.example.com/auth/token")!
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func key(_ file: String, keyID: String? = nil) throws -> ClientSigningKey {
        try ClientSigningKey(data: Data(try openssl.read(file)), keyID: keyID)
    }

    func readError(_ file: String) throws -> SMARTClientError? {
        let data = Data(try openssl.read(file))
        return ClientTest.error { () throws(SMARTClientError) in try ClientSigningKey(data: data) }
    }

    /// Signs an assertion with `key`, verifies it with ClientAssertion.verify and the key's own
    /// public JWKS, then with `openssl dgst -verify` and the public key openssl derives from `pem`.
    func checkEverywhere(_ key: ClientSigningKey, pem: String) throws {
        let jwt = try key.assertion(clientID: "openssl-client", tokenEndpoint: tokenEndpoint, now: now)
        let verified = try ClientAssertion.verify(jwt, clientID: "openssl-client", tokenEndpoint: tokenEndpoint.absoluteString, keys: ClientKeySet(json: key.publicJWKS), now: now)
        #expect(verified.keyID == key.keyID && verified.algorithm == key.algorithm)

        let parts = jwt.split(separator: ".").map(String.init)
        try openssl.write("input.txt", parts[0] + "." + parts[1])
        var signature = try Base64URL.decode(parts[2])
        if key.algorithm == .es384 { signature = ECDSADER.der(fromRaw: signature) }
        try openssl.write("sig.bin", signature)
        try openssl.runChecked(["pkey", "-in", pem, "-pubout", "-out", "pub.pem"])
        let result = try openssl.run(["dgst", "-sha384", "-verify", "pub.pem", "-signature", "sig.bin", "input.txt"])
        #expect(result.status == 0 && result.stdout.contains("Verified OK"), "openssl: \(result.stdout) \(result.stderr)")
    }

    /// The public point openssl derives, as the JWK's x and y.
    func opensslPoint(_ pem: String) throws -> (x: String, y: String) {
        try openssl.runChecked(["pkey", "-in", pem, "-pubout", "-outform", "DER", "-out", "pub.der"])
        let point = Array(try openssl.read("pub.der").suffix(97))
        return (Base64URL.encode(point[1..<49]), Base64URL.encode(point[49..<97]))
    }

    /// The string members of the key's public JWK.
    func jwk(_ key: ClientSigningKey) throws -> [String: String] {
        let object = try #require(try JSONReader().read(key.publicJWKS)["keys"]?[0]?.objectValue)
        return Dictionary(uniqueKeysWithValues: object.members.compactMap { member in member.value.stringValue.map { (member.key, $0) } })
    }

    @Test func es384PKCS8AndSEC1() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "pkcs8.pem"])
        #expect(try openssl.readText("pkcs8.pem").hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let pkcs8 = try key("pkcs8.pem")
        #expect(pkcs8.algorithm == .es384 && pkcs8.keyID?.utf8.count == 43)
        let point = try opensslPoint("pkcs8.pem")
        #expect(try jwk(pkcs8)["x"] == point.x && jwk(pkcs8)["y"] == point.y)
        try checkEverywhere(pkcs8, pem: "pkcs8.pem")

        try openssl.runChecked(["ec", "-in", "pkcs8.pem", "-out", "sec1.pem"])
        #expect(try openssl.readText("sec1.pem").hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        let sec1 = try key("sec1.pem", keyID: "sec1")
        let pkcs8ID = try #require(pkcs8.keyID)
        #expect(sec1.keyID == "sec1" && sec1.publicJWKS == pkcs8.publicJWKS.replacingOccurrences(of: pkcs8ID, with: "sec1"))
        try checkEverywhere(sec1, pem: "sec1.pem")
    }

    @Test func es384FromEcparamWithItsParametersBlock() throws {
        try openssl.runChecked(["ecparam", "-name", "secp384r1", "-genkey", "-out", "ecparam.pem"])
        let text = try openssl.readText("ecparam.pem")
        #expect(text.hasPrefix("-----BEGIN EC PARAMETERS-----") && text.contains("-----BEGIN EC PRIVATE KEY-----"))
        try checkEverywhere(try key("ecparam.pem"), pem: "ecparam.pem")
    }

    @Test func rsa2048PKCS8AndPKCS1() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "pkcs8.pem"])
        #expect(try openssl.readText("pkcs8.pem").hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let pkcs8 = try key("pkcs8.pem", keyID: "rsa-8")
        #expect(pkcs8.algorithm == .rs384)
        let modulus = try openssl.runChecked(["rsa", "-in", "pkcs8.pem", "-noout", "-modulus"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        #expect(try jwk(pkcs8)["n"] == Base64URL.encode(try #require(ClientAssertionOpenSSLTests.bytes(hex: modulus))))
        #expect(try jwk(pkcs8)["e"] == "AQAB")
        try checkEverywhere(pkcs8, pem: "pkcs8.pem")

        try openssl.runChecked(["rsa", "-in", "pkcs8.pem", "-traditional", "-out", "pkcs1.pem"])
        #expect(try openssl.readText("pkcs1.pem").hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let pkcs1 = try key("pkcs1.pem", keyID: "rsa-8")
        #expect(pkcs1.publicJWKS == pkcs8.publicJWKS)
        try checkEverywhere(pkcs1, pem: "pkcs1.pem")
    }

    @Test func unusableOpenSSLKeysAreNamed() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "p256.pem"])
        #expect(try readError("p256.pem") == .unsupportedKey("an EC P-256 key; ES384 needs P-384"))
        try openssl.runChecked(["ec", "-in", "p256.pem", "-out", "p256-sec1.pem"])
        #expect(try readError("p256-sec1.pem") == .unsupportedKey("an EC P-256 key; ES384 needs P-384"))
        try openssl.runChecked(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521", "-out", "p521.pem"])
        #expect(try readError("p521.pem") == .unsupportedKey("an EC P-521 key; ES384 needs P-384"))
        try openssl.runChecked(["genpkey", "-algorithm", "ED25519", "-out", "ed.pem"])
        #expect(try readError("ed.pem") == .unsupportedKey("an Ed25519 key; SMART asks for ES384 or RS384"))

        try openssl.runChecked(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "small.pem"])
        #expect(try readError("small.pem") == .unsupportedKey("a 1024-bit RSA key; at least 2048 bits are needed"))
        try openssl.runChecked(["rsa", "-in", "small.pem", "-traditional", "-out", "small1.pem"])
        #expect(try readError("small1.pem") == .unsupportedKey("a 1024-bit RSA key; at least 2048 bits are needed"))

        try openssl.runChecked(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "ec.pem"])
        try openssl.runChecked(["pkey", "-in", "ec.pem", "-pubout", "-out", "public.pem"])
        #expect(try readError("public.pem") == .unsupportedKey("the PEM holds a PUBLIC KEY, not a private key"))
        try openssl.runChecked(["pkcs8", "-topk8", "-in", "ec.pem", "-v2", "aes-256-cbc", "-passout", "pass:secret", "-out", "encrypted.pem"])
        #expect(try readError("encrypted.pem") == .unsupportedKey("the private key is encrypted; decrypt it first (openssl pkey -in KEY -out PLAIN.pem)"))

        // A PEM cut short, and one whose body is not a key.
        let full = try openssl.readText("ec.pem")
        try openssl.write("cut.pem", String(full.prefix(full.count / 2)))
        #expect(try readError("cut.pem") == .unreadableKey("no complete -----BEGIN …----- / -----END …----- block"))
        try openssl.write("junk.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        #expect(try readError("junk.pem") == .unreadableKey("the PRIVATE KEY block is not a P-384 EC or RSA (2048 bits or more) private key"))
    }
}
