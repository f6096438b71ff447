// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "HealthRecords",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ByteEncodings", targets: ["ByteEncodings"]),
        .library(name: "FHIR", targets: ["FHIR"]),
        .library(name: "ClinicalRecords", targets: ["ClinicalRecords"]),
        .library(name: "Deflate", targets: ["Deflate"]),
        .library(name: "JOSE", targets: ["JOSE"]),
        .library(name: "VerifiableRecords", targets: ["VerifiableRecords"]),
        .library(name: "SmartHealthCards", targets: ["SmartHealthCards"]),
        .library(name: "SmartHealthLinks", targets: ["SmartHealthLinks"]),
        .library(name: "HealthSharing", targets: ["HealthSharing"]),
        .library(name: "PatientSummary", targets: ["PatientSummary"]),
        .library(name: "SampleSignatures", targets: ["SampleSignatures"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .library(name: "CardScanning", targets: ["CardScanning"]),
        .library(name: "CBOR", targets: ["CBOR"]),
        .library(name: "DigitalCovidCertificates", targets: ["DigitalCovidCertificates"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
        .library(name: "HealthStoreCore", targets: ["HealthStoreCore"]),
        .library(name: "HealthStoreSQLite", targets: ["HealthStoreSQLite"]),
        .library(name: "HealthStorePostgres", targets: ["HealthStorePostgres"]),
        .library(name: "HealthImport", targets: ["HealthImport"]),
        .library(name: "HealthArchive", targets: ["HealthArchive"]),
        .library(name: "HealthVocabulary", targets: ["HealthVocabulary"]),
        .library(name: "SMARTAuthorization", targets: ["SMARTAuthorization"]),
        .library(name: "ProviderSync", targets: ["ProviderSync"]),
        .library(name: "HealthServer", targets: ["HealthServer"]),
        // System zlib as a reference, for the Benchmarks package; no library above links it.
        .library(name: "ZlibReference", targets: ["ZlibReference"]),
        .executable(name: "healthrecords", targets: ["healthrecords"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The HTTP server: no default traits (no swift-configuration; saves ≈ 45 s of clean build).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Already in the graph through postgres-nio and hummingbird; named here for the pinned
        // outbound HTTP client (OutboundHTTP).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // Strict base64url and hex: the project's one codec for each; no dependencies.
        .target(name: "ByteEncodings", swiftSettings: strict),
        .target(name: "FHIR", dependencies: ["ByteEncodings"], swiftSettings: strict),
        .target(
            name: "ClinicalRecords",
            dependencies: ["FHIR"],
            resources: [.copy("Resources")],
            swiftSettings: strict
        ),
        // Pure-Swift DEFLATE both ways (raw and zlib): card payloads, PNG reading and writing.
        .target(name: "Deflate", swiftSettings: strict),
        // System zlib: only behind ZlibReference (tests and benchmarks), never in a library target.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // JSON Web Keys (P-256) and the ES256 check, for card issuers and device keys alike.
        .target(
            name: "JOSE",
            dependencies: ["ByteEncodings", "FHIR", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // IP addresses and the IANA special-purpose registries: which addresses outbound requests may reach.
        .target(name: "NetworkAddresses", swiftSettings: strict),
        // What every signed-record format shares: the verifiable record HealthKit presents, the
        // verification issue and its stable code, and the fetcher protocol outbound HTTP implements.
        .target(name: "VerifiableRecords", dependencies: ["FHIR", "NetworkAddresses"], swiftSettings: strict),
        .target(
            name: "SmartHealthCards",
            dependencies: [
                "VerifiableRecords", "FHIR", "ClinicalRecords", "Deflate", "ByteEncodings", "JOSE", "NetworkAddresses",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        // SMART Health Links without HTTP: the shlink:/ payload, the manifest request and manifest,
        // and the files' JWE (alg dir, enc A256GCM, optional raw DEFLATE). Knows nothing of health.
        .target(
            name: "SmartHealthLinks",
            dependencies: ["ByteEncodings", "Deflate", "FHIR", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "SampleSignatures",
            dependencies: [
                "ByteEncodings", "FHIR", "JOSE",
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .target(name: "QRCode", dependencies: ["Deflate"], swiftSettings: strict),
        .target(name: "CardScanning", dependencies: ["VerifiableRecords", "SmartHealthCards", "QRCode", "ByteEncodings"], swiftSettings: strict),
        // CBOR (RFC 8949): a strict reader with limits and a preferred-form writer.
        .target(name: "CBOR", swiftSettings: strict),
        // WebAuthn relying-party checks: client data, authenticator data, COSE keys (ES256,
        // RS256) and signatures, for passkey enrolment and sign-in.
        .target(
            name: "WebAuthn",
            dependencies: [
                "CBOR", "ByteEncodings",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // EU Digital COVID Certificates (HCERT): base45, COSE_Sign1, CWT, the DCC schema, DSC trust lists.
        .target(
            name: "DigitalCovidCertificates",
            dependencies: [
                "CBOR", "VerifiableRecords", "FHIR", "Deflate", "JOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "qrmatrix", dependencies: ["QRCode"], swiftSettings: strict),
        .target(
            name: "HealthStoreCore",
            dependencies: [
                "VerifiableRecords", "FHIR", "ClinicalRecords", "SampleSignatures", "SmartHealthCards", "ByteEncodings",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The embedded engine talks to SQLite's C API directly: its statements run inside async
        // transactions, which GRDB's closure-based access cannot hold open across an await.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "HealthStoreSQLite", dependencies: ["HealthStoreCore", "CSQLite"], swiftSettings: strict),
        .target(
            name: "HealthStorePostgres",
            dependencies: [
                "HealthStoreCore", "ByteEncodings",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        // The export format: a zip (written and read here, stored or DEFLATE through `Deflate`)
        // of every resource's original bytes per source and type, cards, samples and a manifest.
        .target(
            name: "HealthArchive",
            dependencies: [
                "VerifiableRecords", "HealthStoreCore", "FHIR", "ClinicalRecords", "SmartHealthCards", "Deflate",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Import above storage: walks folders, sorts card files from FHIR, streams NDJSON, names
        // sources after files, and hands the engines resources through `ResourceProducer`.
        .target(
            name: "HealthImport",
            dependencies: ["VerifiableRecords", "HealthStoreCore", "HealthArchive", "CardScanning", "SmartHealthCards", "DigitalCovidCertificates", "FHIR", "ClinicalRecords"],
            swiftSettings: strict
        ),
        // The words both front ends (the CLI and the server) share: user parameters into queries,
        // one rule for dates, and one JSON key set for records, cards and samples.
        .target(
            name: "HealthVocabulary",
            dependencies: ["VerifiableRecords", "FHIR", "ClinicalRecords", "HealthStoreCore", "SmartHealthCards"],
            swiftSettings: strict
        ),
        // Outbound HTTP that resolves once, checks every address and connects to the checked one.
        .target(
            name: "OutboundHTTP",
            dependencies: [
                "VerifiableRecords", "NetworkAddresses",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        // The International Patient Summary (IPS 2.0.1) built from the consolidated records.
        .target(
            name: "PatientSummary",
            dependencies: ["FHIR", "ClinicalRecords", "HealthStoreCore", "HealthVocabulary"],
            swiftSettings: strict
        ),
        // Sharing with a clinician: following a SMART Health Link as a receiver (manifest, files,
        // decryption through the pinned outbound client) and importing what it holds; as a
        // sender, making the files a hosted link serves (summary, check-in bundle, cards).
        .target(
            name: "HealthSharing",
            dependencies: [
                "SmartHealthLinks", "HealthImport", "ProviderSync", "CardScanning", "OutboundHTTP", "NetworkAddresses", "FHIR", "HealthStoreCore",
                "PatientSummary", "ClinicalRecords", "ByteEncodings", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // SMART App Launch without HTTP: scopes and their consent categories, PKCE, client
        // assertions (private_key_jwt, ES384 and RS384) and signed id tokens.
        .target(
            name: "SMARTAuthorization",
            dependencies: [
                "JOSE", "ByteEncodings", "FHIR", "ClinicalRecords",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Providers: SMART App Launch and Backend Services as a client, FHIR download and sync;
        // every page enters the store through the import.
        .target(
            name: "ProviderSync",
            dependencies: [
                "HealthStoreCore", "HealthImport", "OutboundHTTP", "SMARTAuthorization", "FHIR", "ClinicalRecords", "NetworkAddresses",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HealthServer",
            dependencies: [
                "PatientSummary", "HealthSharing", "SmartHealthLinks", "VerifiableRecords", "FHIR", "ClinicalRecords", "HealthStoreCore", "HealthVocabulary", "SmartHealthCards", "OutboundHTTP", "NetworkAddresses", "ByteEncodings",
                "SMARTAuthorization", "ProviderSync", "DigitalCovidCertificates", "CardScanning", "HealthImport", "HealthArchive", "WebAuthn", "CMalloc",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict
        ),
        // glibc's malloc tuning, for the command's process (see `MallocTuning`).
        .systemLibrary(name: "CMalloc"),
        .executableTarget(
            name: "healthrecords",
            dependencies: [
                "VerifiableRecords", "HealthSharing", "SmartHealthLinks", "PatientSummary", "CMalloc", "FHIR", "ClinicalRecords", "HealthStoreCore", "HealthStoreSQLite", "HealthStorePostgres", "HealthImport", "HealthVocabulary",
                "SampleSignatures", "SmartHealthCards", "QRCode", "CardScanning", "HealthServer", "OutboundHTTP", "ByteEncodings", "JOSE",
                "ProviderSync", "SMARTAuthorization", "CBOR", "DigitalCovidCertificates", "HealthArchive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "CBOR", "ByteEncodings", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport", swiftSettings: strict),
        // A real HTTP/1.1 server on loopback answering from a closure, for the provider-sync and
        // sharing tests.
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/LoopbackHTTP", swiftSettings: strict
        ),
        // System zlib as the reference DEFLATE is checked and timed against (`ZlibOracle`).
        .target(name: "ZlibReference", dependencies: ["CZlib"], path: "Tests/ZlibReference", swiftSettings: strict),
        .testTarget(name: "ByteEncodingsTests", dependencies: ["ByteEncodings"], swiftSettings: strict),
        // Checks the repository's own documents against the package (docs/architecture.md).
        .testTarget(name: "RepositoryTests", dependencies: ["TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "JOSETests",
            dependencies: ["JOSE", "ByteEncodings", "FHIR", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(name: "FHIRTests", dependencies: ["FHIR", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "SMARTAuthorizationTests",
            dependencies: [
                "SMARTAuthorization", "JOSE", "ByteEncodings", "FHIR", "ClinicalRecords", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "ClinicalRecordsTests", dependencies: ["ClinicalRecords", "TestSupport"], swiftSettings: strict),
        // JPEG fixtures (made by Scripts/make-jpeg-fixtures.py) are read through #filePath.
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "Deflate", "TestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "CardScanningTests", dependencies: ["VerifiableRecords", "CardScanning", "QRCode", "SmartHealthCards", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "DeflateTests", dependencies: ["Deflate", "ZlibReference", "CZlib", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "NetworkAddressesTests", dependencies: ["NetworkAddresses"], swiftSettings: strict),
        .testTarget(
            name: "OutboundHTTPTests",
            dependencies: [
                "OutboundHTTP", "NetworkAddresses", "SmartHealthCards", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebAuthnTests",
            dependencies: [
                "WebAuthn", "CBOR", "ByteEncodings", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DigitalCovidCertificatesTests",
            dependencies: [
                "CBOR", "DigitalCovidCertificates", "SmartHealthCards", "QRCode", "FHIR", "Deflate", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SmartHealthLinksTests",
            dependencies: ["SmartHealthLinks", "ByteEncodings", "Deflate", "FHIR", "TestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(name: "SmartHealthCardsTests", dependencies: ["VerifiableRecords", "SmartHealthCards", "JOSE", "ByteEncodings", "Deflate", "OutboundHTTP", "NetworkAddresses", "TestSupport", "ZlibReference", "CZlib", .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        .testTarget(
            name: "SampleSignaturesTests",
            dependencies: [
                "SampleSignatures", "ByteEncodings", "TestSupport",
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthStoreTests",
            dependencies: [
                "VerifiableRecords", "HealthStoreCore", "HealthStoreSQLite", "HealthStorePostgres", "HealthImport", "SampleSignatures", "SmartHealthCards", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthImportTests",
            dependencies: [
                "HealthImport", "HealthStoreCore", "HealthStoreSQLite", "HealthStorePostgres", "CardScanning", "SmartHealthCards", "FHIR",
                "ClinicalRecords", "TestSupport", "HealthArchive", "Deflate", "SampleSignatures",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthVocabularyTests",
            dependencies: ["VerifiableRecords", "HealthVocabulary", "HealthStoreCore", "ClinicalRecords", "FHIR", "SmartHealthCards", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthRecordsCLITests",
            dependencies: [
                "healthrecords", "FHIR", "ClinicalRecords", "HealthVocabulary", "SampleSignatures", "SmartHealthLinks", "LoopbackHTTP", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthArchiveTests",
            dependencies: ["HealthArchive", "HealthStoreCore", "ClinicalRecords", "FHIR", "SmartHealthCards", "Deflate", "ZlibReference", "CZlib", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PatientSummaryTests",
            dependencies: ["PatientSummary", "HealthImport", "HealthStoreCore", "HealthStoreSQLite", "FHIR", "ClinicalRecords", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthSharingTests",
            dependencies: [
                "HealthSharing", "SmartHealthLinks", "HealthImport", "HealthStoreCore", "HealthStoreSQLite", "NetworkAddresses", "FHIR", "ProviderSync",
                "LoopbackHTTP", "TestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ProviderSyncTests",
            dependencies: [
                "LoopbackHTTP",                 "ProviderSync", "FHIR", "HealthStoreCore", "HealthStoreSQLite", "OutboundHTTP", "NetworkAddresses", "ClinicalRecords", "SMARTAuthorization",
                "TestSupport", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HealthServerTests",
            dependencies: [
                "LoopbackHTTP", "SmartHealthLinks", "HealthSharing", "VerifiableRecords", "HealthServer", "ProviderSync", "QRCode", "Deflate", "HealthStoreCore", "HealthStoreSQLite", "HealthStorePostgres", "HealthImport", "FHIR", "ClinicalRecords", "SmartHealthCards",
                "TestSupport", "OutboundHTTP", "NetworkAddresses", "SMARTAuthorization", "ByteEncodings", "CBOR", "DigitalCovidCertificates", "HealthArchive",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"), "CardScanning",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
    ]
)
