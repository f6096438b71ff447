// swift-tools-version: 6.2
import PackageDescription

// Benchmarks live in their own package so the library's build and tests stay light.
// Run from this folder: swift run -c release healthrecords-bench [import|query|cms|shc|dcc|inflate|deflate|shl|all]
// The docs' signed-sample example: swift run sample-content-example [--signed]
let package = Package(
    name: "HealthRecordsBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HealthRecords", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .executableTarget(
            name: "healthrecords-bench",
            dependencies: [
                .product(name: "FHIR", package: "HealthRecords"),
                .product(name: "ClinicalRecords", package: "HealthRecords"),
                .product(name: "HealthStoreCore", package: "HealthRecords"),
                .product(name: "HealthStoreSQLite", package: "HealthRecords"),
                .product(name: "HealthImport", package: "HealthRecords"),
                .product(name: "SampleSignatures", package: "HealthRecords"),
                .product(name: "SmartHealthCards", package: "HealthRecords"),
                .product(name: "QRCode", package: "HealthRecords"),
                .product(name: "CardScanning", package: "HealthRecords"),
                .product(name: "Deflate", package: "HealthRecords"),
                .product(name: "JOSE", package: "HealthRecords"),
                .product(name: "ZlibReference", package: "HealthRecords"),
                .product(name: "DigitalCovidCertificates", package: "HealthRecords"),
                .product(name: "SmartHealthLinks", package: "HealthRecords"),
                .product(name: "PatientSummary", package: "HealthRecords"),
                .product(name: "VerifiableRecords", package: "HealthRecords"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "sample-content-example",
            dependencies: [
                .product(name: "SampleSignatures", package: "HealthRecords"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
