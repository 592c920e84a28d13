// swift-tools-version:6.1
// Benchmark peer for scripts/bench-transport: a plain WebSocket echo server built on
// Hummingbird 2 + hummingbird-websocket. Separate package so that its dependencies stay
// out of the gateway's build graph. Build:
//   swift build -c release --package-path LoadTests/HummingbirdEcho --scratch-path .build-hummingbird
import PackageDescription

let package = Package(
    name: "HummingbirdEcho",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hb-echo", targets: ["hb-echo"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "hb-echo",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
