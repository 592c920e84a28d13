// swift-tools-version:6.1
// Fuzz targets for the gateway's parsers: a separate package so that the main build never
// needs the fuzzer runtime. Each target is a libFuzzer entry point
// (`@_cdecl("LLVMFuzzerTestOneInput")` in its main.swift). Build and run through
// scripts/fuzz, which passes the sanitizer flags, e.g.:
//
//   scripts/fuzz FuzzHTTP 60
import Foundation
import PackageDescription

/// A target folder may hold a libFuzzer dictionary named `dict` (scripts/fuzz passes it
/// with -dict=); it is not a source file.
func nonSources(_ target: String) -> [String] {
    FileManager.default.fileExists(atPath: "\(Context.packageDirectory)/\(target)/dict") ? ["dict"] : []
}

let package = Package(
    name: "SwitchboardFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Switchboard", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "FuzzHTTP",
            dependencies: [.product(name: "SwitchboardHTTP", package: "Switchboard")],
            path: "FuzzHTTP",
            exclude: nonSources("FuzzHTTP")
        ),
        .executableTarget(
            name: "FuzzHTTPResponse",
            dependencies: [.product(name: "SwitchboardHTTP", package: "Switchboard")],
            path: "FuzzHTTPResponse",
            exclude: nonSources("FuzzHTTPResponse")
        ),
        .executableTarget(
            name: "FuzzFrames",
            dependencies: [
                .product(name: "SwitchboardWebSocket", package: "Switchboard"),
                .product(name: "SwitchboardHTTP", package: "Switchboard"),
                .product(name: "SwitchboardDeflate", package: "Switchboard"),
            ],
            path: "FuzzFrames",
            exclude: nonSources("FuzzFrames")
        ),
        .executableTarget(
            name: "FuzzInflate",
            dependencies: [.product(name: "SwitchboardDeflate", package: "Switchboard")],
            path: "FuzzInflate",
            exclude: nonSources("FuzzInflate")
        ),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: [.product(name: "SwitchboardJSON", package: "Switchboard")],
            path: "FuzzJSON",
            exclude: nonSources("FuzzJSON")
        ),
        .executableTarget(
            name: "FuzzChatFrame",
            dependencies: [.product(name: "SwitchboardChat", package: "Switchboard")],
            path: "FuzzChatFrame",
            exclude: nonSources("FuzzChatFrame")
        ),
        .executableTarget(
            name: "FuzzToken",
            dependencies: [
                .product(name: "SwitchboardAuth", package: "Switchboard"),
                .product(name: "SwitchboardCrypto", package: "Switchboard"),
            ],
            path: "FuzzToken",
            exclude: nonSources("FuzzToken")
        ),
        .executableTarget(
            name: "FuzzBus",
            dependencies: [.product(name: "SwitchboardCluster", package: "Switchboard")],
            path: "FuzzBus",
            exclude: nonSources("FuzzBus")
        ),
        .executableTarget(
            name: "FuzzNATS",
            dependencies: [.product(name: "SwitchboardNATS", package: "Switchboard")],
            path: "FuzzNATS",
            exclude: nonSources("FuzzNATS")
        ),
        .executableTarget(
            name: "FuzzProxy",
            dependencies: [.product(name: "SwitchboardAdmission", package: "Switchboard")],
            path: "FuzzProxy",
            exclude: nonSources("FuzzProxy")
        ),
        .executableTarget(
            name: "FuzzSniffer",
            dependencies: [
                .product(name: "SwitchboardAttachments", package: "Switchboard"),
                .product(name: "SwitchboardCrypto", package: "Switchboard"),
            ],
            path: "FuzzSniffer",
            exclude: nonSources("FuzzSniffer")
        ),
        .executableTarget(
            name: "FuzzThumbnail",
            dependencies: [.product(name: "SwitchboardThumbnails", package: "Switchboard")],
            path: "FuzzThumbnail",
            exclude: nonSources("FuzzThumbnail")
        ),
    ],
    swiftLanguageModes: [.v6]
)
