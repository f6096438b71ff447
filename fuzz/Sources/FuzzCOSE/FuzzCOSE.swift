import CBOR
import DigitalCovidCertificates
import FHIR
import Foundation
import VerifiableRecords

/// The whole DCC path from outside bytes: zlib-compressed COSE (what base45 carries), raw
/// COSE_Sign1, and QR text through the verifier — claims, schema, value sets, signature, times
/// and key usage — and the verifiable clinical record of anything that decodes.
///
/// The trust list holds two member states' test DSCs, one EC P-256 (GR, with the extended key
/// usages of all three kinds) and one RSA (IS, no key usage), because the seeds are their real
/// certificates: with keys of our own no seed's signature would verify, and the checks that
/// follow a verified signature (the DSC's validity, its key usage) would never run.
let es256DSC = "MIIBzDCCAXGgAwIBAgIUDN8nWnn8gBmlWgL3stwhoinVD5MwCgYIKoZIzj0EAwIwIDELMAkGA1UEBhMCR1IxETAPBgNVBAMMCGdybmV0LmdyMB4XDTIxMDUxMjExMjY1OFoXDTIzMDUxMjExMjY1OFowIDELMAkGA1UEBhMCR1IxETAPBgNVBAMMCGdybmV0LmdyMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBcc6ApRZrh9/qCuMnxIRpUujI19bKkG+agj/6rPOiX8VyzfWvhptzV0149AFRWdSoF/NVuQyFcrBoNBqL9zCAqOBiDCBhTAOBgNVHQ8BAf8EBAMCB4AwHQYDVR0OBBYEFN6ZiC57J/yRqTJ/Tg2eRspLCHDhMB8GA1UdIwQYMBaAFNU5HfWNY37TbdZjvsvO+1y1LPJYMDMGA1UdJQQsMCoGDCsGAQQBAI43j2UBAQYMKwYBBAEAjjePZQECBgwrBgEEAQCON49lAQMwCgYIKoZIzj0EAwIDSQAwRgIhAN6rDdE4mtTt2ZuffpZ242/B0lmyvdd+Wy6VuX+J/b01AiEAvME52Y4zqkQDuj2kbfCfs+h3uwYFOepoBP14X+Rd/VM="
let ps256DSC = "MIIFBDCCArygAwIBAgICALkwPQYJKoZIhvcNAQEKMDCgDTALBglghkgBZQMEAgGhGjAYBgkqhkiG9w0BAQgwCwYJYIZIAWUDBAIBogMCASAwgYwxCzAJBgNVBAYTAklTMRowGAYDVQQKDBFUaGpvZHNrcmEgSXNsYW5kczEgMB4GA1UECwwXQ291bnRyeSBTaWduaW5nIENBIFRFU1QxEzARBgNVBAQMCjY1MDM3NjA2NDkxKjAoBgNVBAMMIUZlcmRhc2tpbHJpa2kgLSBJc2xhbmRzIC0gRzMtVEVTVDAeFw0yMTA1MTgxMDIxMzJaFw0yMzA1MTgxMDIxMzJaMBoxCzAJBgNVBAYTAklTMQswCQYDVQQDDAJOSDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAPZm5J/6ssQwMROJqC8gHb6JMSGBeUgrDEsGvkgazMviJYx82JCDfvftwCpGXuEJ9TIxQ6VXLl4ZtsjBGEIcIzHKVblhLyZbWMxvr9CRZMCJi20+QfE64MuqdZBUhPA9JNPgQHxhMU5296g46K9BThAz8j0A/uazkipoeXBDxT0YJed3AOiojYeU6/WKFLcWS/uOK91IA5JJQv2IiULCQZCTRY5SmHX6bC3C+LR91lbT9FIIpe2Pu+OXlv+9E3MosJ9Lo77yFVwptdNRVXV81qoFwMaB1yvxqhm2IwVENzT+xlA0Sg+aOeVth7tp6OH6iJJPwePGPmYaMgpQAfYNncsCAwEAAaOBgDB+MA4GA1UdDwEB/wQEAwIHgDAeBgdngQgBAQYCBBMwEQIBADEMEwJYUhMCWFQTAlhWMCsGA1UdEAQkMCKADzIwMjEwNTE4MTAyMTMyWoEPMjAyMTExMTQxMDIxMzJaMB8GA1UdIwQYMBaAFOpU3cO33JZzH6tmRMmnsPw4gH+sMD0GCSqGSIb3DQEBCjAwoA0wCwYJYIZIAWUDBAIBoRowGAYJKoZIhvcNAQEIMAsGCWCGSAFlAwQCAaIDAgEgA4ICAQAP6ugjVKI7NbdJycvrM/flf2GemATgde8mqTR0IVtQkTYwqRrDfEL1/tHSQzVE+DyvTI2KRTmPZ6GtyIHrEBqeHnSP607HfK26bGkmQas+g7/e6K+ROdYBBKmweNPr0sgbnLo6jCiag+wB9nIKZgbCc8scHOz5Hifvs0KcJpHsAT7a0xlNMnCmeKEmR0JDkxZSeGwaB52uFeb2kmA58SUXeTcR2V1aDitXw/UY/1hzfZcVdLXfDb3GtJ+OKnzWVPzSc3yaEO62ndCvcFHYeIrIMxorE/Shyu3e0j98/PCc6+dP5b2bD9M52fyrEazpqMvtnvPFnEJI2oQxH0hW4bwaML+eG81QQ7iFoPML6jJjRa5+uYRMWuFMZntcy+PJtxWWZVAUu+yXlPpGNkTEJIrtwd92f28r2pObIWi0ghdHmsnaNQ/vLZTMEXeY1qhQbTAw/o0ySirdPdSzGVkDAy6OTnYcBDXpNgfTQb59zAnGdl+rBYKOI3dySO2lxLW0HivuXgYo+c6Lo218BD0dpT/523WcfdxnJQeRvvWVPkO01AR2xB5zEuouXX1NqVemmz1bOiD+yjymfBJ5SixujX+S/PdEVKNzVdTXpepH0C3PGdF6wTn3VhSrXoJXBbBJAhg1vwt4jtaoxBkvbuysRJOGfz+1KsJW1F8AfsfGkz/lJQ=="

let verifier: DCCVerifier = {
    let dscs = [es256DSC, ps256DSC].map { try! DocumentSignerCertificate(der: [UInt8](Data(base64Encoded: $0)!)) }
    precondition(dscs.map(\.algorithm) == [.es256, .ps256])
    return DCCVerifier(trustList: DSCTrustList(dscs))
}()

/// 2021-06-08T16:00:00Z: inside both DSCs' validity and the GR seeds' iat…exp, so a seed
/// verifies cleanly and mutations reach each time and validity check from a passing start.
let checkTime = Date(timeIntervalSince1970: 1_623_168_000)

/// The codes decoding can fail with: a report without a certificate has exactly one of them.
let decodingCodes: Set<VerificationCode> = [.dccPrefix, .dccBase45, .dccZlib, .dccCOSE, .dccCBOR, .dccClaims]

/// The report's own consistency, whatever the input.
func check(_ report: DCCVerification) {
    precondition(report.isValid == report.errors.isEmpty)
    if report.certificate == nil {
        precondition(report.errors.count == 1 && decodingCodes.contains(report.errors[0].code), "an undecodable certificate must name its one failed step")
        precondition(report.signer == nil && report.warnings.isEmpty)
    } else {
        // Once decoded, no decoding step can have failed.
        precondition(report.errors.allSatisfy { !decodingCodes.contains($0.code) }, "a decoded certificate reported a decoding error")
    }
    // Only a listed DSC's verified signature makes a certificate valid.
    if report.isValid { precondition(report.signer != nil && report.isTrusted) }
    precondition(report.errors.allSatisfy { $0.code.rawValue.hasPrefix("dcc.") && !$0.message.isEmpty })
    _ = report.algorithm
    if let record = report.record { use(record) }
}

/// A record's fields, read as the store and the cards page read them.
func use(_ record: VerifiableClinicalRecord) {
    precondition(!record.recordTypes.isEmpty && record.itemNames.count == 1)
    if let payload = record.decodedPayload { precondition(!JSONWriter.minified(payload).isEmpty) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // (a) The bytes base45 carries. Anything that decodes must decode the same way from its
    // QR text, and that text goes through the verifier end to end.
    if let certificate = try? DigitalCovidCertificate(compressed: bytes) {
        if let record = VerifiableClinicalRecord(certificate: certificate) { use(record) }
        let text = DigitalCovidCertificate.prefix + Base45.encode(bytes)
        let report = verifier.verify(text, origin: "fuzz", at: checkTime)
        precondition(report.certificate?.message.encoded == certificate.message.encoded, "the QR text decodes differently from its bytes")
        check(report)
    }
    // (b) A raw COSE_Sign1, verified as decoded.
    if let certificate = try? DigitalCovidCertificate(cose: bytes) {
        precondition(certificate.message.signedBytes.count > certificate.message.payload.count)
        check(verifier.verify(certificate, origin: "fuzz", at: checkTime))
        if let record = VerifiableClinicalRecord(certificate: certificate) { use(record) }
    }
    // (c) QR text, as a scanner or `verify` hands it over.
    check(verifier.verify(String(decoding: bytes, as: UTF8.self), origin: "fuzz", at: checkTime))
    return 0
}
