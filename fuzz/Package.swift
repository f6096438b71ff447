// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for every parser that takes outside bytes. Built and run by run.sh with
// --sanitize=fuzzer --sanitize=address into its own scratch path; each target defines
// LLVMFuzzerTestOneInput instead of main, so this package is never part of the normal build.
let package = Package(
    name: "HealthRecordsFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "HealthRecords", path: "..")],
    targets: [
        .executableTarget(name: "FuzzJSON", dependencies: [.product(name: "FHIR", package: "HealthRecords")], path: "Sources/FuzzJSON"),
        .executableTarget(name: "FuzzFHIR", dependencies: [
            .product(name: "FHIR", package: "HealthRecords"), .product(name: "ClinicalRecords", package: "HealthRecords"),
        ], path: "Sources/FuzzFHIR"),
        .executableTarget(name: "FuzzJWS", dependencies: [.product(name: "SmartHealthCards", package: "HealthRecords"), .product(name: "ByteEncodings", package: "HealthRecords")], path: "Sources/FuzzJWS"),
        .executableTarget(name: "FuzzSHCVerify", dependencies: [
            .product(name: "SmartHealthCards", package: "HealthRecords"), .product(name: "FHIR", package: "HealthRecords"),
            .product(name: "CardScanning", package: "HealthRecords"), .product(name: "QRCode", package: "HealthRecords"),
            .product(name: "JOSE", package: "HealthRecords"),
        ], path: "Sources/FuzzSHCVerify"),
        .executableTarget(name: "FuzzQRText", dependencies: [.product(name: "SmartHealthCards", package: "HealthRecords")], path: "Sources/FuzzQRText"),
        .executableTarget(name: "FuzzInflate", dependencies: [
            .product(name: "SmartHealthCards", package: "HealthRecords"), .product(name: "Deflate", package: "HealthRecords"),
        ], path: "Sources/FuzzInflate"),
        .executableTarget(name: "FuzzCMS", dependencies: [.product(name: "SampleSignatures", package: "HealthRecords")], path: "Sources/FuzzCMS"),
        .executableTarget(name: "FuzzPNG", dependencies: [.product(name: "QRCode", package: "HealthRecords")], path: "Sources/FuzzPNG"),
        .executableTarget(name: "FuzzJPEG", dependencies: [.product(name: "QRCode", package: "HealthRecords")], path: "Sources/FuzzJPEG"),
        .executableTarget(name: "FuzzQRDecode", dependencies: [.product(name: "QRCode", package: "HealthRecords")], path: "Sources/FuzzQRDecode"),
        .executableTarget(name: "FuzzP256", dependencies: [.product(name: "JOSE", package: "HealthRecords")], path: "Sources/FuzzP256"),
        .executableTarget(name: "FuzzSMART", dependencies: [.product(name: "SMARTAuthorization", package: "HealthRecords")], path: "Sources/FuzzSMART"),
        .executableTarget(name: "FuzzSampleContent", dependencies: [.product(name: "SampleSignatures", package: "HealthRecords")], path: "Sources/FuzzSampleContent"),
        .executableTarget(name: "FuzzBase45", dependencies: [.product(name: "DigitalCovidCertificates", package: "HealthRecords")], path: "Sources/FuzzBase45"),
        .executableTarget(name: "FuzzCBOR", dependencies: [
            .product(name: "CBOR", package: "HealthRecords"), .product(name: "DigitalCovidCertificates", package: "HealthRecords"), .product(name: "FHIR", package: "HealthRecords"),
        ], path: "Sources/FuzzCBOR"),
        .executableTarget(name: "FuzzCOSE", dependencies: [
            .product(name: "CBOR", package: "HealthRecords"), .product(name: "DigitalCovidCertificates", package: "HealthRecords"), .product(name: "VerifiableRecords", package: "HealthRecords"),
            .product(name: "FHIR", package: "HealthRecords"),
        ], path: "Sources/FuzzCOSE"),
        .executableTarget(name: "FuzzSHL", dependencies: [.product(name: "SmartHealthLinks", package: "HealthRecords")], path: "Sources/FuzzSHL"),
        .executableTarget(name: "FuzzWebAuthn", dependencies: [
            .product(name: "WebAuthn", package: "HealthRecords"), .product(name: "CBOR", package: "HealthRecords"),
            .product(name: "ByteEncodings", package: "HealthRecords"),
        ], path: "Sources/FuzzWebAuthn"),
    ]
)
