import Foundation
import SwitchboardHTTP
import SwitchboardMetrics
import Testing

@testable import SwitchboardServer

/// docs/openapi.yaml and the router cannot drift: every operation the file
/// describes is a route the gateway has, and every route of the JSON API
/// (`APIRoutes`) is described there.
@Suite struct OpenAPIRouteTests {
    /// (method, path) of each operation under `paths:`, as written in the file.
    private static func documented() throws -> [(method: String, path: String)] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        var operations: [(String, String)] = []
        var path: String?
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line.hasPrefix("paths:")
                path = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "patch", "delete"].contains(key) {
                    operations.append((key.uppercased(), path))
                }
            }
        }
        return operations
    }

    @Test func everyDocumentedOperationIsRoutedAndEveryAPIRouteIsDocumented() throws {
        let operations = try Self.documented()
        #expect(operations.count >= APIRoutes.all.count, "the paths of docs/openapi.yaml were read: \(operations)")
        var configuration = Configuration()
        configuration.webEnabled = false
        let router = Routes.router(configuration, database: true)
        for (method, path) in operations {
            let concrete = path.replacingOccurrences(of: "{id}", with: "0b1c2d3e-0000-4000-8000-000000000001")
            if case .found(let route, _) = router.match(method: HTTPMethod(method), path: concrete) {
                #expect(route != .other && route != .preflight, "\(method) \(path) routes to \(route)")
            } else {
                Issue.record("\(method) \(path) is in docs/openapi.yaml but the gateway has no such route")
            }
        }
        for route in APIRoutes.all {
            #expect(
                operations.contains { $0.method == route.method.description && $0.path == route.pattern },
                "\(route.method) \(route.pattern) is routed but not described in docs/openapi.yaml")
        }
        for (method, pattern, _) in AttachmentRoutes.all {
            #expect(
                operations.contains { $0.method == method.description && $0.path == pattern },
                "\(method) \(pattern) is routed but not described in docs/openapi.yaml")
        }
    }
}
