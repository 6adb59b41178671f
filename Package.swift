// swift-tools-version: 6.2
//
// passkeyd: a WebAuthn / passkey relying-party service.
//
// Layering (see docs/architecture.md "Layout"):
//   Error shape             PasskeyErrors                      (ErrorCode / CodedError; no dependencies)
//   C system libraries      CLibCBOR, COpenSSL, CLibPQ         (each imported by exactly one wrapper)
//   C wrappers              CBORCodec, COSECrypto, LibPQ       (C pointers never leave these modules)
//   Ceremony engine         WebAuthnModel (wire types), WebAuthnCore (pure; no I/O, no C imports)
//   FIDO metadata           PasskeyMetadata (reads an MDS3 BLOB file; verification is in WebAuthnCore)
//   Identity providers      IdentityCore (pure), ProviderKeys (the network fetches of identity: JWKS, discovery)
//   Webhooks                WebhookCore (pure: signatures, retry schedule, URL policy); the HTTP transport is in
//                           PasskeyServerSupport/Events
//   Apple-signed data       AppleSignedData (pure: StoreKit / App Store notifications JWS, App Attest)
//   Storage                 PasskeyStore (protocols, in-memory twin), PasskeyStorePostgres
//   Use cases               PasskeyApp (one folder per domain; no HTTP)
//   HTTP                    PasskeyHTTP (decode, call one use case, encode; the one error mapping)
//   Settings                PasskeySettings (the variable catalog, parsing and validation; no HTTP)
//   Executable              PasskeyServerSupport (settings onto HTTP), PasskeyServer (the only place concrete parts are chosen)
//   Test support / tools    WebAuthnTestSupport (software authenticator), IdentityTestSupport (fake provider),
//                           passkeyd-bench, passkeyd-loadgen, passkeyd-idp
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Wrapper modules additionally opt into strict memory safety so each unsafe operation is marked.
let wrapperSettings: [SwiftSetting] = strictSettings + [.strictMemorySafety()]

let package = Package(
    name: "passkeyd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebAuthnCore", targets: ["WebAuthnCore"]),
        .executable(name: "passkeyd", targets: ["PasskeyServer"]),
        .executable(name: "passkeyd-bench", targets: ["PasskeyBench"]),
        .executable(name: "passkeyd-softkey", targets: ["PasskeySoftKey"]),
        .executable(name: "passkeyd-loadgen", targets: ["PasskeyLoadGen"]),
        .executable(name: "passkeyd-fuzz", targets: ["PasskeyFuzz"]),
        .executable(name: "passkeyd-idp", targets: ["PasskeyIdP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Tracing (issue 30): the API everywhere spans are made; swift-otel (its OTLP/HTTP exporter only, no gRPC) in
        // the executable's assembly, bootstrapped only when OTEL_* variables ask for traces (docs/operations.md).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // MARK: the error shape every module's error type adopts: an open code set, code-only equality
        .target(name: "PasskeyErrors", swiftSettings: strictSettings),

        // MARK: C libraries (Debian packages)
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // MARK: one Swift wrapper per C library
        .target(name: "CBORCodec", dependencies: ["CLibCBOR", "PasskeyErrors"], swiftSettings: wrapperSettings),
        .target(name: "COSECrypto", dependencies: ["COpenSSL", "CBORCodec", "PasskeyErrors"], swiftSettings: wrapperSettings),
        .target(
            name: "LibPQ",
            dependencies: ["CLibPQ", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: wrapperSettings
        ),

        // MARK: ceremony engine
        .target(name: "WebAuthnModel", swiftSettings: strictSettings),
        // JWS / JWK for every domain (SafetyNet and the MDS BLOB, provider ID tokens, passkeyd's own tokens): compact
        // parse with size caps, algorithm allow-lists passed as values, verification with a JWK set or a secret.
        .target(name: "JOSE", dependencies: ["WebAuthnModel", "COSECrypto", "CBORCodec", "PasskeyErrors"], swiftSettings: strictSettings),
        .target(
            name: "WebAuthnCore",
            dependencies: ["WebAuthnModel", "CBORCodec", "COSECrypto", "JOSE", "PasskeyErrors"],
            swiftSettings: strictSettings
        ),

        // Ceremony state sealed into the challenge (AES-256-GCM under a shared ceremony key): begins write nothing.
        .target(name: "SealedState", dependencies: ["COSECrypto", "PasskeyErrors"], swiftSettings: strictSettings),

        // MARK: native sign-in with a provider's ID token (pure: profiles, nonce rules, verification; keys as values)
        .target(name: "IdentityCore", dependencies: ["JOSE", "COSECrypto", "WebAuthnModel", "PasskeyErrors"], swiftSettings: strictSettings),
        // Pure: passkeyd's sessions (access-token claims and keys, refresh and handoff secrets, PKCE). No I/O.
        .target(name: "SessionCore", dependencies: ["JOSE", "COSECrypto", "WebAuthnModel", "PasskeyErrors"], swiftSettings: strictSettings),
        // Pure: webhook delivery's rules (Standard Webhooks signatures and secrets, the retry schedule, which answers
        // are retried, the endpoint URL and address policy). No I/O.
        .target(name: "WebhookCore", dependencies: ["COSECrypto", "PasskeyErrors"], swiftSettings: strictSettings),
        // The only code that fetches from the network: provider key sets (JWKS URL, OIDC discovery, a file) behind
        // IdentityCore's ProviderKeySource, cached with refetch limits.
        .target(
            name: "ProviderKeys",
            dependencies: [
                "IdentityCore", "JOSE", "WebAuthnModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Apple-signed data (pure): StoreKit 2 / App Store Server Notifications JWS and their payload rules,
        // entitlements from transactions; App Attest attestations and assertions. Keys and roots come in as values.
        .target(
            name: "AppleSignedData",
            dependencies: ["WebAuthnCore", "JOSE", "COSECrypto", "CBORCodec", "WebAuthnModel", "PasskeyErrors"],
            swiftSettings: strictSettings
        ),

        // MARK: FIDO metadata: reads a metadata BLOB from disk and hands the bytes to WebAuthnCore (which has no I/O)
        .target(name: "PasskeyMetadata", dependencies: ["WebAuthnCore", "COSECrypto", "PasskeyErrors"], swiftSettings: strictSettings),

        // MARK: storage
        .target(name: "PasskeyStore", dependencies: ["WebAuthnCore", "IdentityCore", "COSECrypto", "AppleSignedData", "PasskeyErrors", "SealedState"], swiftSettings: strictSettings),
        .target(
            name: "PasskeyStorePostgres",
            dependencies: ["PasskeyStore", "IdentityCore", "AppleSignedData", "WebAuthnCore", "SealedState", "LibPQ", .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: the use cases of every domain, between the stores and HTTP (no HTTP here): passkey ceremonies,
        // ID-token sign-in and Apple's code exchange, sessions and handoff, App Store, App Attest; one folder per
        // domain; each throws its domain's errors and HTTP maps them.
        .target(
            name: "PasskeyApp",
            dependencies: [
                "PasskeyErrors", "WebAuthnCore", "WebAuthnModel", "PasskeyStore", "COSECrypto", "IdentityCore", "JOSE", "SessionCore", "AppleSignedData", "SealedState",
                "WebhookCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: HTTP (thin: routes, JSON bodies, error mapping)
        .target(
            name: "PasskeyHTTP",
            dependencies: [
                "PasskeyApp", "SessionCore", "AppleSignedData",
                "WebAuthnCore", "WebAuthnModel", "PasskeyStore", "COSECrypto", "IdentityCore", "JOSE",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/demo")],
            swiftSettings: strictSettings
        ),

        // MARK: settings: every PASSKEYD_* variable declared once (ConfigurationCatalog), read, validated and turned
        // into the domains' values; no HTTP here (PasskeyServerSupport maps them onto HTTPConfiguration).
        .target(
            name: "PasskeySettings",
            dependencies: [
                "PasskeyApp", "PasskeyMetadata", "PasskeyStore", "LibPQ", "WebAuthnCore", "WebAuthnModel", "COSECrypto", "IdentityCore", "JOSE",
                "SessionCore", "AppleSignedData", "WebhookCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // The version (VERSION) and source revision, written before each build by the BuildInfo plugin.
        .target(
            name: "PasskeyBuildInfo",
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "BuildInfo")]
        ),
        .plugin(name: "BuildInfo", capability: .buildTool()),

        // MARK: the executable: the only place concrete parts are chosen
        // Its assembly library: the settings' mapping onto the HTTP layer, the JSON log handler and pool gauges, in a
        // library so they can be unit-tested (re-exports PasskeySettings).
        .target(
            name: "PasskeyServerSupport",
            dependencies: [
                "PasskeySettings", "PasskeyApp", "PasskeyHTTP", "PasskeyMetadata", "PasskeyStore", "LibPQ", "WebAuthnCore", "IdentityCore",
                "WebAuthnModel", "ProviderKeys", "PasskeyBuildInfo", "SealedState", "WebhookCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "PasskeyServer",
            dependencies: [
                "PasskeyServerSupport", "PasskeyBuildInfo", "IdentityCore", "SessionCore",
                "PasskeyApp", "PasskeyHTTP", "PasskeyStorePostgres", "LibPQ", "WebAuthnCore", "COSECrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: test support and tools
        // The settings tests' fixtures (PasskeySettingsTests and PasskeyHTTPTests).
        .target(
            name: "SettingsTestSupport",
            dependencies: ["PasskeySettings", "WebAuthnTestSupport", "COSECrypto"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAuthnTestSupport",
            dependencies: ["WebAuthnCore", "WebAuthnModel", "CBORCodec", "COSECrypto"],
            swiftSettings: strictSettings
        ),
        // A fake identity provider for tests: signing keys, ID tokens with any claim or header bent, its JWKS, and a
        // loopback HTTP server for the JWKS, discovery and Apple's token / revoke endpoints.
        .target(
            name: "IdentityTestSupport",
            dependencies: [
                "JOSE", "COSECrypto", "WebAuthnModel",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The PostgreSQL of the tests: the test command's database, the migrations, a fresh migrated schema per test.
        .target(
            name: "PostgresTestSupport",
            dependencies: ["LibPQ", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        // passkeyd-idp: plays the identity provider (keys, ID tokens, a JWKS server) for the ID-token walkthrough (docs/id-tokens.md).
        .executableTarget(
            name: "PasskeyIdP",
            dependencies: ["IdentityTestSupport", "JOSE", "COSECrypto", "WebAuthnModel"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "PasskeyBench",
            dependencies: ["WebAuthnCore", "WebAuthnModel", "WebAuthnTestSupport", "COSECrypto", "CBORCodec"],
            swiftSettings: strictSettings
        ),

        // The load generator of scripts/loadbench.sh: seeds users and credentials (COPY through psql), pre-signs
        // assertions, drives a running passkeyd over HTTP/1.1 on loopback (swift-nio) and writes a Markdown summary.
        .executableTarget(
            name: "PasskeyLoadGen",
            dependencies: [
                "WebAuthnCore", "WebAuthnModel", "WebAuthnTestSupport", "COSECrypto", "CBORCodec",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "PasskeySoftKey",
            dependencies: ["WebAuthnModel", "WebAuthnTestSupport", "COSECrypto"],
            swiftSettings: strictSettings
        ),

        // The libFuzzer targets of scripts/fuzz.sh (one per parser; PASSKEYD_FUZZ_TARGET picks one). Built with
        // `-DFUZZING -sanitize=fuzzer,address` by that script; a normal build is the tool that replays inputs and
        // writes the seed corpora.
        .executableTarget(
            name: "PasskeyFuzz",
            dependencies: ["WebAuthnCore", "WebAuthnModel", "CBORCodec", "COSECrypto", "IdentityCore", "JOSE", "AppleSignedData", "SealedState"],
            swiftSettings: strictSettings
        ),

        // MARK: tests
        .testTarget(name: "PasskeyErrorsTests", dependencies: ["PasskeyErrors"], swiftSettings: strictSettings),
        .testTarget(name: "CBORCodecTests", dependencies: ["CBORCodec"], swiftSettings: strictSettings),
        .testTarget(name: "COSECryptoTests", dependencies: ["COSECrypto", "CBORCodec"], swiftSettings: strictSettings),
        .testTarget(name: "SealedStateTests", dependencies: ["SealedState", "COSECrypto"], swiftSettings: strictSettings),
        .testTarget(name: "WebhookCoreTests", dependencies: ["WebhookCore", "COSECrypto"], swiftSettings: strictSettings),
        // The webhook dispatcher (PasskeyApp/Events) on a fake outbox and a recording transport.
        .testTarget(
            name: "WebhookDispatchTests",
            dependencies: [
                "PasskeyApp", "PasskeyStore", "WebhookCore", "COSECrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "LibPQTests", dependencies: ["LibPQ", "PostgresTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "IdentityCoreTests", dependencies: ["IdentityCore", "JOSE", "COSECrypto", "WebAuthnModel"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SessionCoreTests", dependencies: ["SessionCore", "JOSE", "COSECrypto", "WebAuthnModel"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PasskeyHTTPTests",
            dependencies: [
                "PasskeyApp", "PasskeyHTTP", "PasskeyStore", "PasskeyStorePostgres", "LibPQ", "WebAuthnCore", "WebAuthnModel",
                "WebAuthnTestSupport", "PostgresTestSupport", "PasskeyServerSupport", "SealedState", "COSECrypto", "IdentityCore", "JOSE", "ProviderKeys",
                "IdentityTestSupport", "AppleSignedData", "PasskeyBuildInfo", "SettingsTestSupport", "WebhookCore",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The settings without HTTP: every variable's parsing and refusals, the catalog, docs/configuration.md's tables.
        .testTarget(
            name: "PasskeySettingsTests",
            dependencies: [
                "PasskeySettings", "PasskeyApp", "PasskeyStore", "LibPQ", "WebAuthnCore", "WebAuthnModel", "WebAuthnTestSupport", "COSECrypto",
                "IdentityCore", "JOSE", "SessionCore", "AppleSignedData", "SettingsTestSupport", "WebhookCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ProviderKeysTests",
            dependencies: [
                "ProviderKeys", "IdentityTestSupport", "IdentityCore", "JOSE", "COSECrypto", "WebAuthnModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PasskeyStoreTests",
            dependencies: [
                "PasskeyStore", "PasskeyStorePostgres", "LibPQ", "WebAuthnCore", "WebAuthnModel", "WebAuthnTestSupport", "PostgresTestSupport",
                "IdentityCore", "AppleSignedData", "SealedState",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppleSignedDataTests",
            dependencies: [
                "AppleSignedData", "WebAuthnCore", "JOSE", "COSECrypto", "CBORCodec", "WebAuthnModel",
                "WebAuthnTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PasskeyMetadataTests",
            dependencies: ["PasskeyMetadata", "WebAuthnCore", "WebAuthnTestSupport", "COSECrypto"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAuthnCoreTests",
            dependencies: ["WebAuthnCore", "WebAuthnModel", "WebAuthnTestSupport", "CBORCodec", "COSECrypto"],
            swiftSettings: strictSettings
        ),
    ]
)
