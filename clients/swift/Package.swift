// swift-tools-version: 6.0
//
// PasskeydClient: passkeyd's HTTP API for Swift backends (Hummingbird, Vapor, …), on AsyncHTTPClient. Its own
// package, apart from the server's (the repository root), so an app that adds it resolves AsyncHTTPClient and
// swift-nio only. README.md: how to depend on it, and an example.
import PackageDescription

let package = Package(
    name: "passkeyd-client",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "PasskeydClient", targets: ["PasskeydClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "PasskeydClient",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // Coverage (every operation of ../../Sources/PasskeyHTTP/Resources/openapi.json has its method and every method
        // an operation; requests and answers checked against the schemas; error codes), the retry rules on a
        // recording transport, and the live walkthroughs against a real passkeyd (scripts/test/swift-client-test.sh).
        .testTarget(name: "PasskeydClientTests", dependencies: ["PasskeydClient"]),
    ]
)
