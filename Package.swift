// swift-tools-version:6.1
import PackageDescription

// scripts/fuzz builds with SwiftPM's --sanitize=fuzzer, which SwiftPM applies to build tools as
// well: it compiles web-asset-embedder's main.swift as a library (so its top-level code does not
// compile) and links it with libFuzzer. No fuzz target needs the browser clients, so that build
// (SB_FUZZ_BUILD=1) leaves SwitchboardWeb's plugin out, and with it the tool.
let fuzzBuild = Context.environment["SB_FUZZ_BUILD"] == "1"

// Modules follow the path of a message: system calls -> event loop -> HTTP ->
// WebSocket (with its deflate extension) -> server wiring -> executable.
// Only the bottom modules import C.
let package = Package(
    name: "Switchboard",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "switchboard", targets: ["switchboard"]),
        // Libraries so that separate packages (Fuzz/, benchmarks) can link the parsers.
        .library(name: "SwitchboardHTTP", targets: ["SwitchboardHTTP"]),
        .library(name: "SwitchboardWebSocket", targets: ["SwitchboardWebSocket"]),
        .library(name: "SwitchboardDeflate", targets: ["SwitchboardDeflate"]),
        .library(name: "SwitchboardSystem", targets: ["SwitchboardSystem"]),
        .library(name: "SwitchboardJSON", targets: ["SwitchboardJSON"]),
        .library(name: "SwitchboardChat", targets: ["SwitchboardChat"]),
        .library(name: "SwitchboardAuth", targets: ["SwitchboardAuth"]),
        .library(name: "SwitchboardCrypto", targets: ["SwitchboardCrypto"]),
        .library(name: "SwitchboardIdentifiers", targets: ["SwitchboardIdentifiers"]),
        .library(name: "SwitchboardNATS", targets: ["SwitchboardNATS"]),
        .library(name: "SwitchboardCluster", targets: ["SwitchboardCluster"]),
        .library(name: "SwitchboardAdmission", targets: ["SwitchboardAdmission"]),
        .library(name: "SwitchboardAttachments", targets: ["SwitchboardAttachments"]),
        .library(name: "SwitchboardThumbnails", targets: ["SwitchboardThumbnails"]),
        .library(name: "SwitchboardWebhooks", targets: ["SwitchboardWebhooks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // C modules: headers only, plus static inline shims for macros.
        .target(name: "CSystem"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),

        .target(name: "SwitchboardSystem", dependencies: ["CSystem"]),
        // What protocol handlers see of a connection (ConnectionIO): the seam between them and the
        // loop's sockets, so that tests can run them over in-memory connections. No C, no dependencies.
        .target(name: "SwitchboardIO"),
        .target(name: "SwitchboardLoop", dependencies: ["SwitchboardIO", "SwitchboardSystem"]),
        .target(name: "SwitchboardCrypto", dependencies: ["COpenSSL"]),
        .target(name: "SwitchboardTLS", dependencies: ["COpenSSL"]),
        .target(name: "SwitchboardHTTP"),
        .target(name: "SwitchboardJSON"),
        .target(name: "SwitchboardIdentifiers"),
        // Who may connect: client addresses, trusted proxies (PROXY protocol,
        // X-Forwarded-For) and the per-address limits (docs/limits.md).
        .target(name: "SwitchboardAdmission"),
        // The browser clients (Web/), compiled in by the plugin below.
        .target(name: "SwitchboardWeb", plugins: fuzzBuild ? [] : ["EmbedWebAssets"]),
        .plugin(name: "EmbedWebAssets", capability: .buildTool(), dependencies: ["web-asset-embedder"]),
        .executableTarget(
            name: "web-asset-embedder", dependencies: ["WebScriptMinifier"], path: "Plugins/WebAssetEmbedder"),
        // Scripts as served: comments, indentation and the spaces tokens do not need left out (a tokenizer).
        .target(name: "WebScriptMinifier", path: "Plugins/WebScriptMinifier"),
        .target(name: "SwitchboardPostgres", dependencies: ["CLibPQ"]),
        .target(name: "SwitchboardStore", dependencies: ["SwitchboardPostgres", "SwitchboardCrypto"]),
        .target(
            name: "SwitchboardWriter",
            dependencies: ["SwitchboardPostgres", "SwitchboardSystem", "SwitchboardIdentifiers"]),
        // The attachment workers (docs/attachments.md): threads with their own connections that store
        // uploads (PostgreSQL chunks or files), read them back in ranges, and purge orphans.
        .target(
            name: "SwitchboardAttachmentStore",
            dependencies: ["SwitchboardPostgres", "SwitchboardSystem", "SwitchboardIdentifiers"]),
        .target(name: "SwitchboardNATS", dependencies: ["SwitchboardSystem"]),
        // The cluster bus: what one gateway node tells the others (docs/cluster.md).
        .target(
            name: "SwitchboardCluster",
            dependencies: [
                "SwitchboardPostgres", "SwitchboardSystem", "SwitchboardJSON", "SwitchboardChat", "SwitchboardNATS",
                "SwitchboardRouting", "SwitchboardAttachments",
            ]),
        .target(name: "SwitchboardDeflate", dependencies: ["CZlib"]),
        // Thumbnails of uploaded images (docs/attachments.md): libvips, with the pixels an image
        // declares checked before any decoding. Called on the attachment workers, never on a loop.
        .target(name: "SwitchboardThumbnails", dependencies: ["CVips"]),
        .target(name: "SwitchboardMetrics", dependencies: [.product(name: "Prometheus", package: "swift-prometheus")]),
        .target(
            name: "SwitchboardAuth", dependencies: ["SwitchboardCrypto", "SwitchboardJSON", "SwitchboardIdentifiers"]),
        // Attachments' decisions (docs/attachments.md): content types from the bytes, signed URLs,
        // byte ranges, the in-flight budget, the attachment object; no I/O of any kind.
        .target(name: "SwitchboardAttachments", dependencies: ["SwitchboardCrypto", "SwitchboardJSON"]),
        // Webhooks' decisions (docs/webhooks.md): signatures, secrets, the retry schedule, which
        // targets are allowed, the delivery queue's contract; no I/O of any kind.
        .target(name: "SwitchboardWebhooks", dependencies: ["SwitchboardCrypto"]),
        // Webhooks' delivery (docs/webhooks.md): the dispatcher's threads, which claim due deliveries
        // and POST them through their own HTTP/1.1 client (TLS through SwitchboardTLS), and the
        // creation-time DNS check.
        .target(
            name: "SwitchboardWebhookDelivery",
            dependencies: [
                "SwitchboardWebhooks", "SwitchboardSystem", "SwitchboardHTTP", "SwitchboardTLS",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Routing's decisions (docs/routing.md): policies and plans over plain values, no I/O of any kind.
        .target(name: "SwitchboardRouting"),
        .target(
            name: "SwitchboardChat",
            dependencies: [
                "SwitchboardJSON", "SwitchboardAuth", "SwitchboardIdentifiers", "SwitchboardRouting",
                "SwitchboardAttachments",
            ]),
        .target(
            name: "SwitchboardReaders",
            dependencies: [
                "SwitchboardPostgres", "SwitchboardChat", "SwitchboardIdentifiers", "SwitchboardSystem",
                "SwitchboardRouting", "SwitchboardAttachments", "SwitchboardWebhooks",
            ]),
        .target(
            name: "SwitchboardWebSocket",
            dependencies: ["SwitchboardDeflate", "SwitchboardCrypto"]
        ),
        // The chat protocol's state and decisions, one core per event loop, driven by commands and
        // answering through peers: no loop, no HTTP, no C.
        .target(
            name: "SwitchboardChatCore",
            dependencies: [
                "SwitchboardSystem", "SwitchboardWebSocket", "SwitchboardAuth", "SwitchboardChat", "SwitchboardReaders",
                "SwitchboardWriter", "SwitchboardMetrics", "SwitchboardCluster", "SwitchboardRouting",
                "SwitchboardAttachments", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SwitchboardServer",
            dependencies: [
                "SwitchboardChatCore", "SwitchboardSystem", "SwitchboardIO", "SwitchboardLoop", "SwitchboardTLS",
                "SwitchboardHTTP",
                "SwitchboardWebSocket",
                "SwitchboardDeflate", "SwitchboardJSON", "SwitchboardIdentifiers", "SwitchboardCrypto",
                "SwitchboardAuth",
                "SwitchboardChat",
                "SwitchboardReaders", "SwitchboardWriter", "SwitchboardStore", "SwitchboardMetrics", "SwitchboardWeb",
                "SwitchboardCluster", "SwitchboardNATS", "SwitchboardAdmission", "SwitchboardRouting",
                "SwitchboardAttachments", "SwitchboardAttachmentStore", "SwitchboardThumbnails", "SwitchboardWebhooks",
                "SwitchboardWebhookDelivery",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "switchboard",
            dependencies: [
                "SwitchboardServer", "SwitchboardStore", "SwitchboardAuth", "SwitchboardSystem",
                "SwitchboardAttachmentStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Load harnesses: release-built executables that drive the gateway from outside.
        .executableTarget(
            name: "transport-bench",
            dependencies: ["SwitchboardSystem", "CSystem", "SwitchboardWebSocket", "SwitchboardJSON", "LoadKit"],
            path: "LoadTests/TransportBench"),
        .executableTarget(
            name: "writer-bench",
            dependencies: [
                "SwitchboardWriter", "SwitchboardStore", "SwitchboardPostgres", "SwitchboardJSON", "SwitchboardSystem",
                "SwitchboardCluster", "SwitchboardChat", "SwitchboardReaders",
            ],
            path: "LoadTests/WriterBench"),
        // Time and peak memory of the thumbnailer on image files (scripts/bench-thumbnails).
        .executableTarget(
            name: "thumbnail-bench", dependencies: ["SwitchboardThumbnails"], path: "LoadTests/ThumbnailBench"),
        // The chat load harness: simulated widgets and consoles on client epoll loops.
        .target(
            name: "LoadKit",
            dependencies: [
                "CSystem", "SwitchboardSystem", "SwitchboardWebSocket", "SwitchboardCrypto",
                "SwitchboardJSON", "SwitchboardAuth", "SwitchboardIdentifiers", "SwitchboardPostgres",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "LoadTests/LoadKit",
            // The harness's per-delivery state lives in classes (a shard, its
            // participants, their sockets): checking each access to it for
            // overlap at run time took about 15% of the harness's CPU in a
            // fan-out run (docs/benchmarks.md). Its accesses stay checked at
            // compile time, and the tests build it the same way.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
        .executableTarget(name: "loadtest", dependencies: ["LoadKit"], path: "LoadTests/LoadTest"),

        // Shared by the integration tests: throwaway databases on the test server, child processes.
        .target(
            name: "SwitchboardTestSupport",
            dependencies: ["SwitchboardPostgres", "SwitchboardStore", "SwitchboardSystem"],
            path: "Tests/SwitchboardTestSupport"),

        .testTarget(name: "SwitchboardHTTPTests", dependencies: ["SwitchboardHTTP"]),
        .testTarget(name: "WebScriptMinifierTests", dependencies: ["WebScriptMinifier"]),
        .testTarget(name: "SwitchboardJSONTests", dependencies: ["SwitchboardJSON"]),
        .testTarget(name: "SwitchboardAdmissionTests", dependencies: ["SwitchboardAdmission"]),
        .testTarget(name: "SwitchboardMetricsTests", dependencies: ["SwitchboardMetrics"]),
        .testTarget(name: "SwitchboardRoutingTests", dependencies: ["SwitchboardRouting"]),
        .testTarget(name: "SwitchboardCryptoTests", dependencies: ["SwitchboardCrypto"]),
        .testTarget(
            name: "SwitchboardAttachmentsTests",
            dependencies: ["SwitchboardAttachments", "SwitchboardCrypto", "SwitchboardJSON"]),
        .testTarget(name: "SwitchboardWebhooksTests", dependencies: ["SwitchboardWebhooks", "SwitchboardCrypto"]),
        .testTarget(
            name: "SwitchboardWebhookDeliveryTests",
            dependencies: [
                "SwitchboardWebhookDelivery", "SwitchboardWebhooks", "SwitchboardSystem", "SwitchboardTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SwitchboardAuthTests",
            dependencies: ["SwitchboardAuth", "SwitchboardCrypto", "SwitchboardJSON", "SwitchboardSystem"]),
        .testTarget(
            name: "SwitchboardChatTests",
            dependencies: [
                "SwitchboardChat", "SwitchboardAuth", "SwitchboardJSON", "SwitchboardRouting", "SwitchboardAttachments",
            ]),
        .testTarget(
            name: "SwitchboardReadersTests",
            dependencies: [
                "SwitchboardReaders", "SwitchboardChat", "SwitchboardAuth", "SwitchboardPostgres", "SwitchboardStore",
                "SwitchboardTestSupport", "SwitchboardRouting", "SwitchboardAttachments", "SwitchboardWebhooks",
            ]),
        .testTarget(name: "SwitchboardDeflateTests", dependencies: ["SwitchboardDeflate", "CZlib"]),
        .testTarget(
            name: "SwitchboardThumbnailsTests", dependencies: ["SwitchboardThumbnails", "CVips"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "SwitchboardWebSocketTests",
            dependencies: ["SwitchboardWebSocket", "SwitchboardHTTP", "SwitchboardDeflate", "SwitchboardCrypto"]
        ),
        .testTarget(name: "SwitchboardPostgresTests", dependencies: ["SwitchboardPostgres", "SwitchboardTestSupport"]),
        .testTarget(
            name: "SwitchboardStoreTests",
            dependencies: ["SwitchboardStore", "SwitchboardPostgres", "SwitchboardTestSupport"]),
        .testTarget(
            name: "SwitchboardAttachmentStoreTests",
            dependencies: [
                "SwitchboardAttachmentStore", "SwitchboardPostgres", "SwitchboardSystem", "SwitchboardCrypto",
                "SwitchboardTestSupport",
            ]),
        .testTarget(
            name: "SwitchboardWriterTests",
            dependencies: [
                "SwitchboardWriter", "SwitchboardStore", "SwitchboardPostgres", "SwitchboardIdentifiers",
                "SwitchboardSystem", "SwitchboardTestSupport",
            ]),
        // Connections and a loop without sockets or epoll, driven step by step by tests
        // (ConnectionIO's in-memory side): the gateway's handlers run over them in-process.
        .target(
            name: "SwitchboardEmbedded", dependencies: ["SwitchboardIO", "SwitchboardSystem"],
            path: "Tests/SwitchboardEmbedded"),
        // Shared by the TLS tests: an OpenSSL client over memory BIOs (nothing in the gateway is a TLS client).
        .target(
            name: "SwitchboardTLSTestSupport", dependencies: ["SwitchboardTLS", "COpenSSL"],
            path: "Tests/SwitchboardTLSTestSupport"),
        .testTarget(
            name: "SwitchboardTLSTests",
            dependencies: ["SwitchboardTLS", "SwitchboardCrypto", "SwitchboardTLSTestSupport"]),
        .testTarget(
            name: "LoadKitTests",
            dependencies: [
                "LoadKit", "SwitchboardSystem", "SwitchboardWebSocket", "SwitchboardJSON", "SwitchboardChat",
            ]),
        .testTarget(
            name: "SwitchboardLoopTests", dependencies: ["SwitchboardLoop", "SwitchboardIO", "SwitchboardSystem"]),
        .testTarget(
            name: "SwitchboardServerTests",
            dependencies: [
                "SwitchboardServer", "SwitchboardChatCore", "SwitchboardHTTP", "SwitchboardAuth", "SwitchboardJSON",
                "SwitchboardStore",
                "SwitchboardPostgres", "SwitchboardTestSupport", "SwitchboardSystem", "SwitchboardChat",
                "SwitchboardReaders",
                "SwitchboardWriter", "SwitchboardMetrics", "SwitchboardDeflate", "SwitchboardCluster",
                "SwitchboardAdmission", "SwitchboardIO", "SwitchboardEmbedded", "SwitchboardRouting",
                "SwitchboardAttachments", "SwitchboardCrypto", "SwitchboardAttachmentStore", "SwitchboardWebhooks",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SwitchboardChatCoreTests",
            dependencies: [
                "SwitchboardChatCore", "SwitchboardAuth", "SwitchboardChat", "SwitchboardReaders", "SwitchboardWriter",
                "SwitchboardMetrics", "SwitchboardCluster", "SwitchboardSystem", "SwitchboardRouting",
                "SwitchboardAttachments", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SwitchboardNATSTests",
            dependencies: ["SwitchboardNATS", "SwitchboardSystem", "SwitchboardTestSupport"]),
        .testTarget(
            name: "SwitchboardClusterTests",
            dependencies: [
                "SwitchboardCluster", "SwitchboardChat", "SwitchboardNATS", "SwitchboardPostgres", "SwitchboardRouting",
                "SwitchboardTestSupport", "SwitchboardAttachments",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
