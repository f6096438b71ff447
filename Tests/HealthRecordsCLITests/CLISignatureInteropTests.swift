import FHIR
import Foundation
import Testing
import TestSupport

/// `healthrecords signature` and `keys generate` against the real `openssl cms`, both ways.
@Suite struct CLISignatureInteropTests {
    let openssl: OpenSSLRunner
    let cli = CommandRunner()
    static let content = Array("HKQuantityTypeIdentifierBloodGlucose 5.40 mmol/L\n\u{0}\u{FF}binary\r\n".utf8)

    init() throws {
        openssl = try OpenSSLRunner()
        try openssl.write("content.bin", Self.content)
    }

    func path(_ name: String) -> String { openssl.path(name) }

    @Test(
        "openssl cms -verify accepts what signature sign writes",
        arguments: [false, true], [[], ["--certificate"], ["--certificate", "--key-id"]]
    )
    func opensslVerifiesOurSignatures(signedAttributes: Bool, identification: [String]) throws {
        let keys = try cli.run([
            "keys", "generate", "--p256", "--private", path("key.pem"), "--public", path("pub.pem"), "--certificate", path("cert.pem"),
            "--subject", "CN=Meter",
        ])
        #expect(keys.status == 0, "\(keys.stderr)")
        for detached in [false, true] {
            var arguments = ["signature", "sign", "--content", path("content.bin"), "--key", path("key.pem"), "--out", path("sig.der"), "--force"]
            if identification.contains("--certificate") { arguments += ["--certificate", path("cert.pem")] }
            if identification.contains("--key-id") { arguments.append("--key-id") }
            if signedAttributes { arguments.append("--signed-attributes") }
            if detached { arguments.append("--detached") }
            let signed = try cli.run(arguments)
            #expect(signed.status == 0, "\(signed.stderr)")

            var verify = ["cms", "-verify", "-inform", "DER", "-binary", "-in", "sig.der", "-certfile", "cert.pem", "-noverify", "-out", "out.bin"]
            if detached { verify += ["-content", "content.bin"] }
            let verified = try openssl.runChecked(verify)
            #expect(verified.stderr.contains("Verification successful"))
            #expect(try openssl.read("out.bin") == Self.content)
            // With the self-signed certificate as trust anchor, the chain verifies too.
            var chained = ["cms", "-verify", "-inform", "DER", "-binary", "-in", "sig.der", "-certfile", "cert.pem", "-CAfile", "cert.pem", "-out", "out2.bin"]
            if detached { chained += ["-content", "content.bin"] }
            try openssl.runChecked(chained)

            // And ours agrees, through the same command line.
            var ours = ["signature", "verify", path("sig.der"), "--key", path("pub.pem"), "--json"]
            if detached { ours += ["--content", path("content.bin")] }
            let result = try cli.run(ours)
            #expect(result.status == 0, "\(result.stderr)")
            let report = try JSONReader().read(result.stdout)
            #expect(report["verified"]?.boolValue == true)
            #expect(report["signedAttributes"]?.boolValue == signedAttributes)
            #expect(report["detached"]?.boolValue == detached)
        }
    }

    @Test(
        "signature verify accepts what openssl cms -sign writes",
        arguments: [false, true], [false, true]
    )
    func weVerifyOpenSSLSignatures(noattr: Bool, keyid: Bool) throws {
        try openssl.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"])
        try openssl.runChecked(["req", "-new", "-x509", "-key", "key.pem", "-subj", "/O=Example/CN=OpenSSL Meter", "-days", "30", "-out", "cert.pem"])
        try openssl.runChecked(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"])
        var sign = ["cms", "-sign", "-nodetach", "-binary", "-md", "sha256", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig.der"]
        if noattr { sign.append("-noattr") }
        if keyid { sign.append("-keyid") }
        try openssl.runChecked(sign)

        for trust in [["--certificate", path("cert.pem")], ["--key", path("pub.pem")]] {
            let r = try cli.run(["signature", "verify", path("sig.der"), "--content-out", path("out.bin"), "--force"] + trust)
            #expect(r.status == 0, "\(trust): \(r.stderr)")
            #expect(r.output.contains("signed attributes: \(noattr ? "no" : "yes")"))
            #expect(r.output.contains(keyid ? "subject key identifier" : "issuer"))
            #expect(try openssl.read("out.bin") == Self.content)
        }

        // PEM and base64 forms of the same message are read too.
        try openssl.runChecked(["cms", "-cmsout", "-inform", "DER", "-in", "sig.der", "-outform", "PEM", "-out", "sig.pem"])
        try openssl.write("sig.b64", Data(try openssl.read("sig.der")).base64EncodedString(options: .lineLength64Characters))
        for file in ["sig.pem", "sig.b64"] {
            #expect(try cli.run(["signature", "verify", path(file), "--certificate", path("cert.pem")]).status == 0, "\(file)")
        }

        // A flipped content byte fails with exit 1 and a reason.
        var bytes = try openssl.read("sig.der")
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: Self.content) })
        bytes[start + 37] ^= 0x01  // inside "5.40" of the attached content
        try openssl.write("bad.der", bytes)
        let bad = try cli.run(["signature", "verify", path("bad.der"), "--certificate", path("cert.pem")])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains(noattr ? "does not verify" : "message-digest"))
    }

    @Test func rejectsOpenSSLStreamingBERAndOtherDigestsWithTypedReasons() throws {
        try openssl.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"])
        try openssl.runChecked(["req", "-new", "-x509", "-key", "key.pem", "-subj", "/CN=Streamer", "-days", "1", "-out", "cert.pem"])
        try openssl.runChecked(["cms", "-sign", "-stream", "-nodetach", "-binary", "-md", "sha256", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig.ber"])
        let r = try cli.run(["signature", "verify", path("sig.ber"), "--certificate", path("cert.pem")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("indefinite"))

        try openssl.runChecked(["cms", "-sign", "-nodetach", "-binary", "-md", "sha384", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig384.der"])
        let sha384 = try cli.run(["signature", "verify", path("sig384.der"), "--certificate", path("cert.pem")])
        #expect(sha384.status == 1)
        #expect(sha384.stderr.contains("unsupported digest algorithm 2.16.840.1.101.3.4.2.2"))
    }

    @Test func reportsUsageErrorsWithExitTwo() throws {
        #expect(try cli.run(["signature", "verify", path("missing.der"), "--key", path("missing.pem")]).status == 2)
        #expect(try cli.run(["signature", "verify", path("content.bin")]).status == 2)
        #expect(try cli.run(["signature", "sign", "--content", path("content.bin"), "--key", path("missing.pem"), "--out", path("x")]).status == 2)
    }
}
