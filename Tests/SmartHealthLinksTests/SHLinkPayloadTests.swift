import ByteEncodings
import FHIR
import Foundation
import SmartHealthLinks
import Testing

/// The link and its payload: the IG's examples both ways, the receiver's tolerance, and the
/// sharer's rules.
@Suite struct SHLinkPayloadTests {
    /// The IG's "Example SMART Health Link Generation": its encoded payload, from the spec.
    static let specEncodedPayload =
        "eyJ1cmwiOiJodHRwczovL2Voci5leGFtcGxlLm9yZy9xci9ZOXh3a1VkdG1OOXd3b0pvTjNmZkpJaFgyVUd2Q0wxSm5sUFZOTDNrRFdNL20iLCJmbGFnIjoiTFAiLCJrZXkiOiJyeFRnWWxPYUtKUEZ0Y0VkMHFjY2VOOHdFVTRwOTRTcUF3SVdRZTZ1WDdRIiwibGFiZWwiOiJCYWNrLXRvLXNjaG9vbCBpbW11bml6YXRpb25zIGZvciBPbGl2ZXIgQnJvd24ifQ"

    static let specURL = "https://ehr.example.org/qr/Y9xwkUdtmN9wwoJoN3ffJIhX2UGvCL1JnlPVNL3kDWM/m"

    /// `IPS_IG-bundle-01-shl-details.json`: note that its `shlinkBare` is the viewer-prefixed
    /// form and `shlink` the bare one.
    struct LinkDetails: Decodable {
        let shlinkBare: String
        let shlink: String
    }

    /// A payload's JSON text with the example key, as link text.
    static func link(json: String) -> String { "shlink:/" + Base64URL.encode(json.utf8) }

    static let keyText = "rxTgYlOaKJPFtcEd0qcceN8wEU4p94SqAwIWQe6uX7Q"

    // MARK: The IG's examples

    @Test func writesTheSpecExampleLinkByteForByte() throws {
        let payload = try SHLinkPayload(
            url: Self.specURL, key: SHLVectors.key(), flags: [.passcode, .longTerm], label: "Back-to-school immunizations for Oliver Brown"
        )
        #expect(payload.link == "shlink:/" + Self.specEncodedPayload)
        #expect(payload.link(viewer: "https://viewer.example.org#") == "https://viewer.example.org#shlink:/" + Self.specEncodedPayload)
        #expect(payload.link(viewer: "https://viewer.example.org") == "https://viewer.example.org#shlink:/" + Self.specEncodedPayload)
        let read = try SHLinkPayload(link: "https://viewer.example.org#shlink:/" + Self.specEncodedPayload)
        #expect(read == payload)
    }

    @Test func readsTheIPSExampleLinkAndWritesItBack() throws {
        let text = try SHLVectors.text("IPS_IG-bundle-01-shl.txt")
        let key = try SHLVectors.key()
        let payload = try SHLinkPayload(link: text)
        #expect(payload.url == "https://raw.githubusercontent.com/seanno/shc-demo-data/main/ips/IPS_IG-bundle-01-enc.txt")
        #expect(payload.flags == [.longTerm, .directFile])
        #expect(payload.key == key)
        #expect(payload.label == "Demo SHL for IPS_IG-bundle-01")
        #expect(payload.expiration == nil)
        #expect(payload.version == nil)
        #expect(payload.effectiveVersion == 1)
        #expect(payload.warnings.isEmpty)

        #expect(payload.link(viewer: "https://viewer.tcpdev.org/shlink.html#") == text)
        let details = try JSONDecoder().decode(LinkDetails.self, from: SHLVectors.data("IPS_IG-bundle-01-shl-details.json"))
        #expect(details.shlinkBare == text)
        #expect(payload.link == details.shlink)
        #expect(try SHLinkPayload(link: details.shlink) == payload)

        // shl-payload-2.json is the same payload as JSON.
        let fromJSON = try SHLinkPayload(json: SHLVectors.data("shl-payload-2.json"))
        #expect(fromJSON == payload)
    }

    @Test func readsTheCARINExampleLink() throws {
        let payload = try SHLinkPayload(link: SHLVectors.text("CARIN_INS_CD-bundle-01-shl.txt"))
        #expect(payload.url == "https://raw.githubusercontent.com/seanno/shc-demo-data/main/cards/carin-insurance-example/jws.txt")
        #expect(payload.flags == [.longTerm, .directFile])
        #expect(payload.label == "Demo SHL for carin-insurance-example")
    }

    /// `shl-payload-1.json`: `exp` is a string (of milliseconds) — reported, not trusted — and
    /// `labelzzz` is an unknown member — ignored.
    @Test func toleratesTheStringExpirationAndTheUnknownMember() throws {
        let bytes = try SHLVectors.data("shl-payload-1.json")
        let payload = try SHLinkPayload(json: bytes)
        #expect(payload.url == Self.specURL)
        #expect(payload.flags == [.longTerm, .passcode])
        #expect(payload.expiration == nil)
        #expect(payload.warnings == [.expirationNotANumber(.string("1767225600000"))])
        #expect(payload.warnings.map(\.code) == ["shl.payload.exp"])
        #expect(payload.label == nil)
        #expect(payload.version == 1)
        #expect(!payload.isExpired(at: Date(timeIntervalSince1970: 4_000_000_000)))

        // The same bytes as a link, without and with base64 padding.
        let unpadded = "shlink:/" + Base64URL.encode(bytes)
        let padded = "shlink:/" + bytes.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(padded.hasSuffix("=="))
        #expect(try SHLinkPayload(link: unpadded) == payload)
        #expect(try SHLinkPayload(link: padded) == payload)

        // Written back: the untrusted exp and the unknown member are gone, v stays.
        #expect(payload.minifiedJSON == #"{"url":"\#(Self.specURL)","flag":"LP","key":"\#(Self.keyText)","v":1}"#)
        let again = try SHLinkPayload(link: payload.link)
        #expect(again.warnings.isEmpty)
        #expect(again.url == payload.url && again.flags == payload.flags && again.version == 1)
    }

    // MARK: Reading: what is tolerated

    @Test func readsSecondsAndIgnoresMilliseconds() throws {
        let seconds = try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","exp":1767225600}"#))
        #expect(seconds.expiration == 1_767_225_600)
        #expect(seconds.warnings.isEmpty)
        #expect(seconds.isExpired(at: Date(timeIntervalSince1970: 1_767_225_601)))
        #expect(!seconds.isExpired(at: Date(timeIntervalSince1970: 1_767_225_599)))
        let later = Date(timeIntervalSince1970: 1_767_300_000)
        #expect(throws: SHLError.expired(expiration: 1_767_225_600, checkedAt: later)) { try seconds.checkNotExpired(at: later) }
        #expect(SHLError.expired(expiration: 1_767_225_600, checkedAt: later).code == "shl.expired")

        let fraction = try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","exp":1767225600.75}"#))
        #expect(fraction.expiration == 1_767_225_600)

        let millis = try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","exp":1767225600000}"#))
        #expect(millis.expiration == nil)
        #expect(millis.warnings == [.expirationInMilliseconds(1_767_225_600_000)])

        let boolean = try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","exp":true}"#))
        #expect(boolean.expiration == nil)
        #expect(boolean.warnings == [.expirationNotANumber(.bool(true))])
    }

    @Test func ignoresUnknownFlagsAndMembers() throws {
        let json = #"{"url":"https://a.example/m","key":"\#(Self.keyText)","flag":"LXU","_ext":1,"extension":{"a":[1]}}"#
        let payload = try SHLinkPayload(link: Self.link(json: json))
        #expect(payload.flags == [.longTerm, .directFile])
        #expect(payload.warnings == [.unknownFlags("X")])
        #expect(SHLFlags(letters: "ULZ") == [.longTerm, .directFile])
        #expect(SHLFlags([.directFile, .passcode, .longTerm]).letters == "LPU")
    }

    @Test func toleratesALongLabelAndURLButSaysSo() throws {
        let label = String(repeating: "x", count: 81)
        let url = "https://a.example/" + String(repeating: "m", count: 120)
        let payload = try SHLinkPayload(link: Self.link(json: #"{"url":"\#(url)","key":"\#(Self.keyText)","label":"\#(label)"}"#))
        #expect(payload.label == label)
        #expect(payload.warnings == [.urlTooLong(length: 138), .labelTooLong(length: 81)])
    }

    @Test func readsEveryFormOfTheLinkText() throws {
        let bare = Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)"}"#)
        let expected = try SHLinkPayload(link: bare)
        let encoded = String(bare.dropFirst("shlink:/".count))
        for text in [
            "  \(bare)\n",
            "SHLINK:/" + encoded,
            "https://viewer.example.org/#shlink:/" + encoded,
            "https://viewer.example.org/app#/route#shlink:/" + encoded,
            "https://viewer.example.org/open?x=1#SHLink:/" + encoded,
        ] {
            #expect(try SHLinkPayload(link: text) == expected, "\(text)")
        }
    }

    // MARK: Reading: what is refused

    @Test func refusesWhatIsNotALink() throws {
        #expect(throws: SHLError.payload(.notALink)) { try SHLinkPayload(link: "https://viewer.example.org/#nothing") }
        #expect(throws: SHLError.payload(.notALink)) { try SHLinkPayload(link: "shc:/5676290952432060346029243740446031222959532654603460292540772804336028702864716745222809286133314564376531415906402203064504590856435503414245413640370636654171372412363803043756220467374075323239254334433260573601064529315312707424283950386922127667345336") }
        #expect(throws: SHLError.payload(.notJSONObject)) { try SHLinkPayload(link: Self.link(json: "[1]")) }
        #expect(throws: SHLError.payload(.notJSONObject)) { try SHLinkPayload(link: Self.link(json: "not json")) }
        let tooLong = "shlink:/" + String(repeating: "A", count: 70_000)
        #expect(throws: SHLError.payload(.tooLong(length: 70_008, limit: 65_536))) { try SHLinkPayload(link: tooLong) }

        // `+` and `/` are base64, not base64url.
        do {
            _ = try SHLinkPayload(link: "shlink:/eyJ1+mwiOiJ/")
            Issue.record("base64 (not url) text was read")
        } catch {
            guard case .payload(.notBase64URL(_)) = error else { Issue.record("\(error)"); return }
            #expect(error.code == "shl.payload")
        }
    }

    @Test func refusesMissingOrMistypedMembers() throws {
        #expect(throws: SHLError.payload(.missing(member: "url"))) { try SHLinkPayload(link: Self.link(json: #"{"key":"\#(Self.keyText)"}"#)) }
        #expect(throws: SHLError.payload(.missing(member: "key"))) { try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m"}"#)) }
        #expect(throws: SHLError.payload(.wrongType(member: "url"))) { try SHLinkPayload(link: Self.link(json: #"{"url":7,"key":"\#(Self.keyText)"}"#)) }
        #expect(throws: SHLError.payload(.emptyURL)) { try SHLinkPayload(link: Self.link(json: #"{"url":"","key":"\#(Self.keyText)"}"#)) }
        #expect(throws: SHLError.payload(.wrongType(member: "flag"))) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","flag":["L"]}"#))
        }
        #expect(throws: SHLError.payload(.wrongType(member: "label"))) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","label":1}"#))
        }
        #expect(throws: SHLError.payload(.wrongType(member: "v"))) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","v":"1"}"#))
        }
        #expect(throws: SHLError.key(.length(characters: 42))) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText.dropLast())"}"#))
        }
        #expect(throws: SHLError.key(.length(characters: 44))) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)="}"#))
        }
    }

    /// `U` is a `GET` with no passcode: the spec forbids `P` with it.
    @Test func refusesPasscodeWithDirectFile() throws {
        #expect(throws: SHLError.payload(.passcodeWithDirectFile)) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","flag":"PU"}"#))
        }
        #expect(throws: SHLError.payload(.passcodeWithDirectFile)) {
            try SHLinkPayload(url: "https://a.example/m", key: .random(), flags: [.passcode, .directFile])
        }
    }

    /// Another `v` is refused before the rest is read, with the label kept for the message.
    @Test func refusesOtherVersionsButKeepsTheLabel() throws {
        let json = #"{"url":"https://a.example/m","key":"a different key form","v":2,"label":"Later"}"#
        #expect(throws: SHLError.unsupportedVersion(2, label: "Later")) { try SHLinkPayload(link: Self.link(json: json)) }
        #expect(SHLError.unsupportedVersion(2, label: "Later").code == "shl.version")
        #expect(SHLError.unsupportedVersion(2, label: "Later").description.contains("Later"))
        #expect(throws: SHLError.unsupportedVersion(0, label: nil)) {
            try SHLinkPayload(link: Self.link(json: #"{"url":"https://a.example/m","key":"\#(Self.keyText)","v":0}"#))
        }
    }

    // MARK: Writing

    @Test func holdsTheSharerToTheSpec() throws {
        let key = SHLKey.random()
        #expect(throws: SHLError.payload(.emptyURL)) { try SHLinkPayload(url: "", key: key) }
        let longURL = "https://a.example/" + String(repeating: "m", count: 111)
        #expect(throws: SHLError.payload(.urlTooLong(length: 129))) { try SHLinkPayload(url: longURL, key: key) }
        #expect(throws: SHLError.payload(.labelTooLong(length: 81))) {
            try SHLinkPayload(url: "https://a.example/m", key: key, label: String(repeating: "é", count: 81))
        }
        #expect(throws: SHLError.payload(.negativeExpiration(-1))) { try SHLinkPayload(url: "https://a.example/m", key: key, expiration: -1) }
        #expect(throws: SHLError.unsupportedVersion(2, label: nil)) { try SHLinkPayload(url: "https://a.example/m", key: key, version: 2) }
        // 128 characters and 80 are allowed.
        let url128 = "https://a.example/" + String(repeating: "m", count: 110)
        #expect(url128.count == 128)
        _ = try SHLinkPayload(url: url128, key: key, label: String(repeating: "x", count: 80))
    }

    @Test func roundTripsEveryMember() throws {
        let payload = try SHLinkPayload(
            url: "https://shl.example.org/manifests/I91rhba3VsuGXGchcnr6VHlQFKxfE28kuZ0ssbEuxno/manifest.json",
            key: .random(), expiration: 1_767_225_600, flags: [.longTerm, .passcode],
            label: "Ünïcode, \"quotes\", a back\\slash / and a\ttab", version: 1
        )
        #expect(payload.minifiedJSON.hasPrefix(#"{"url":"https://shl.example.org/manifests/"#))
        #expect(payload.minifiedJSON.contains(#""exp":1767225600,"label":"Ünïcode, \"quotes\", a back\\slash / and a\ttab","v":1}"#))
        let read = try SHLinkPayload(link: payload.link(viewer: "https://viewer.example.org/#"))
        #expect(read == payload)
    }

    @Test func buildsTheDirectFileURL() throws {
        let key = SHLKey.random()
        let plain = try SHLinkPayload(url: "https://files.example/f/abc", key: key, flags: [.directFile])
        #expect(plain.directFileURL(recipient: "Dr. Ada & Co") == "https://files.example/f/abc?recipient=Dr.%20Ada%20%26%20Co")
        let query = try SHLinkPayload(url: "https://files.example/f?id=abc", key: key, flags: [.directFile])
        #expect(query.directFileURL(recipient: "Clinic") == "https://files.example/f?id=abc&recipient=Clinic")
    }

    // MARK: The key

    @Test func makesAndReadsKeys() throws {
        let key = SHLKey.random()
        #expect(key.bytes.count == 32)
        #expect(key.base64url.count == 43)
        #expect(try SHLKey(base64url: key.base64url) == key)
        #expect(try SHLKey(bytes: key.bytes) == key)
        #expect(SHLKey.random() != key)
        #expect(!key.description.contains(key.base64url))
        #expect(throws: SHLError.key(.byteCount(31))) { try SHLKey(bytes: [UInt8](repeating: 0, count: 31)) }
        #expect(throws: SHLError.key(.length(characters: 0))) { try SHLKey(base64url: "") }
        // 43 characters whose last one carries bits a 32-byte key cannot have.
        do {
            _ = try SHLKey(base64url: String(Self.keyText.dropLast()) + "R")
            Issue.record("a non-canonical key was read")
        } catch {
            #expect(error == .key(.notBase64URL(.nonCanonical)))
            #expect(error.code == "shl.key")
        }
    }
}
