// swift-tools-version: 6.2
import PackageDescription

// Benchmarks live in their own package so the library's build and tests stay light.
// Run from this folder: swift run -c release healthrecords-bench [import|query|all]
let package = Package(
    name: "HealthRecordsBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HealthRecords", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "healthrecords-bench",
            dependencies: [
                .product(name: "FHIR", package: "HealthRecords"),
                .product(name: "ClinicalRecords", package: "HealthRecords"),
                .product(name: "HealthStore", package: "HealthRecords"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
