import Testing

@testable import LoadKit

@Suite("check-imports")
struct ImportCheckTests {
    let core = PackageTarget(name: "Core", type: "regular", path: "Sources/Core", dependencies: ["CSystem", "JSON"])
    let json = PackageTarget(name: "JSON", type: "regular", path: "Sources/JSON", dependencies: [])
    let tests = PackageTarget(name: "CoreTests", type: "test", path: "Tests/CoreTests", dependencies: ["Core"])

    @Test("import lines, with attributes and kinds, name their module; others do not")
    func importLines() {
        #expect(ImportRules.importedModule("import JSON") == "JSON")
        #expect(ImportRules.importedModule("  @testable  @_exported import struct Foo.Bar") == "Foo")
        #expect(ImportRules.importedModule("import\tGlibc // libc") == "Glibc")
        #expect(ImportRules.importedModule("// import JSON") == nil)
        #expect(ImportRules.importedModule("importJSON") == nil)
        #expect(ImportRules.importedModule("let x = 1") == nil)
    }

    @Test("undeclared, libc and Foundation imports are reported; string literals are skipped")
    func violations() {
        let text = "import JSON\nimport Glibc\nimport Foundation\nimport Other\nlet s = \"\"\"\nimport Hidden\n\"\"\"\n"
        let problems = ImportRules.check(text, path: "Sources/JSON/A.swift", target: json, known: ["JSON", "Core"])
        #expect(
            problems == [
                "Sources/JSON/A.swift:1: JSON imports JSON: not a declared dependency in Package.swift (it may import: nothing)",
                "Sources/JSON/A.swift:2: JSON imports Glibc: the C library is for targets that wrap C (they depend on a C module)"
                    + " (it may import: nothing)",
                "Sources/JSON/A.swift:3: JSON imports Foundation: Foundation is for tests and load harnesses only (it may import: nothing)",
                "Sources/JSON/A.swift:4: JSON imports Other: not a declared dependency (or a product of one) in Package.swift"
                    + " (it may import: nothing)",
            ])
        // A target that wraps C may use libc; tests may use Foundation.
        #expect(ImportRules.check("import Glibc\nimport JSON\n", path: "a", target: core, known: []).isEmpty)
        #expect(
            ImportRules.check("import Foundation\n@testable import Core\n", path: "t", target: tests, known: []).isEmpty
        )
    }

    @Test("the module table: bottom first, what each may import, job texts kept")
    func table() throws {
        let document = """
            head
            <!-- modules:begin -->
            | module | job | may import |
            | --- | --- | --- |
            | `Core` | the core | old |
            <!-- modules:end -->
            tail
            """
        let parts = try ModuleTable.read(document)
        #expect(parts.jobs == ["Core": "the core"])
        let (text, missing) = try ModuleTable.render([core, json, tests], jobs: parts.jobs)
        #expect(missing == ["JSON"])
        #expect(
            text == "\n| module | job | may import |\n| --- | --- | --- |\n"
                + "| `JSON` | (no description yet: write one in docs/architecture.md) | nothing |\n"
                + "| `Core` | the core | CSystem, JSON, libc |\n")
        let cycle = [
            PackageTarget(name: "A", type: "regular", path: "A", dependencies: ["B"]),
            PackageTarget(name: "B", type: "regular", path: "B", dependencies: ["A"]),
        ]
        #expect(throws: ReportError.self) { try ModuleTable.render(cycle, jobs: [:]) }
    }

    @Test("the chat core may not reach the loop, HTTP, TLS or the server, nor depend on C")
    func layers() {
        let targets = [
            PackageTarget(name: "SwitchboardChatCore", type: "regular", path: "c", dependencies: ["Mid", "CZlib"]),
            PackageTarget(name: "Mid", type: "regular", path: "m", dependencies: ["SwitchboardHTTP"]),
            PackageTarget(name: "SwitchboardHTTP", type: "regular", path: "h", dependencies: []),
            PackageTarget(name: "SwitchboardRouting", type: "regular", path: "r", dependencies: []),
            PackageTarget(name: "SwitchboardAttachments", type: "regular", path: "a", dependencies: []),
            PackageTarget(name: "SwitchboardWebhooks", type: "regular", path: "w", dependencies: []),
        ]
        #expect(
            ImportRules.checkLayers(targets) == [
                "Package.swift: SwitchboardChatCore reaches SwitchboardHTTP (SwitchboardChatCore -> Mid -> SwitchboardHTTP):"
                    + " the chat core must stay free of the loop, HTTP, TLS and the server's wiring",
                "Package.swift: SwitchboardChatCore depends on the C module CZlib: it may reach C only through the Swift"
                    + " modules that wrap it",
            ])
    }

    @Test("routing's decisions may reach no I/O, nor depend on C")
    func routingLayer() {
        let targets = [
            PackageTarget(name: "SwitchboardChatCore", type: "regular", path: "c", dependencies: []),
            PackageTarget(name: "SwitchboardRouting", type: "regular", path: "r", dependencies: ["Helpers", "CLibPQ"]),
            PackageTarget(name: "Helpers", type: "regular", path: "h", dependencies: ["SwitchboardPostgres"]),
            PackageTarget(name: "SwitchboardPostgres", type: "regular", path: "p", dependencies: []),
            PackageTarget(name: "SwitchboardAttachments", type: "regular", path: "a", dependencies: []),
            PackageTarget(name: "SwitchboardWebhooks", type: "regular", path: "w", dependencies: []),
        ]
        #expect(
            ImportRules.checkLayers(targets) == [
                "Package.swift: SwitchboardRouting reaches SwitchboardPostgres (SwitchboardRouting -> Helpers ->"
                    + " SwitchboardPostgres): routing's decisions must stay free of I/O (system calls, loops, HTTP,"
                    + " the database)",
                "Package.swift: SwitchboardRouting depends on the C module CLibPQ: it may reach C only through the"
                    + " Swift modules that wrap it",
            ])
    }

    @Test("attachments' decisions may reach no I/O, nor depend on C")
    func attachmentsLayer() {
        let targets = [
            PackageTarget(name: "SwitchboardChatCore", type: "regular", path: "c", dependencies: []),
            PackageTarget(name: "SwitchboardRouting", type: "regular", path: "r", dependencies: []),
            PackageTarget(
                name: "SwitchboardAttachments", type: "regular", path: "a",
                dependencies: ["SwitchboardCrypto", "SwitchboardSystem", "COpenSSL"]),
            PackageTarget(name: "SwitchboardCrypto", type: "regular", path: "k", dependencies: ["COpenSSL"]),
            PackageTarget(name: "SwitchboardSystem", type: "regular", path: "s", dependencies: ["CSystem"]),
            PackageTarget(name: "SwitchboardWebhooks", type: "regular", path: "w", dependencies: []),
        ]
        #expect(
            ImportRules.checkLayers(targets) == [
                "Package.swift: SwitchboardAttachments reaches SwitchboardSystem (SwitchboardAttachments ->"
                    + " SwitchboardSystem): attachments' decisions must stay free of I/O (system calls, loops, HTTP,"
                    + " the database)",
                "Package.swift: SwitchboardAttachments depends on the C module COpenSSL: it may reach C only through"
                    + " the Swift modules that wrap it",
            ])
    }

    @Test("webhooks' decisions may reach no I/O, nor depend on C")
    func webhooksLayer() {
        let targets = [
            PackageTarget(name: "SwitchboardChatCore", type: "regular", path: "c", dependencies: []),
            PackageTarget(name: "SwitchboardRouting", type: "regular", path: "r", dependencies: []),
            PackageTarget(name: "SwitchboardAttachments", type: "regular", path: "a", dependencies: []),
            PackageTarget(
                name: "SwitchboardWebhooks", type: "regular", path: "w",
                dependencies: ["SwitchboardCrypto", "SwitchboardReaders", "CVips"]),
            PackageTarget(name: "SwitchboardCrypto", type: "regular", path: "k", dependencies: ["COpenSSL"]),
            PackageTarget(name: "SwitchboardReaders", type: "regular", path: "d", dependencies: []),
        ]
        #expect(
            ImportRules.checkLayers(targets) == [
                "Package.swift: SwitchboardWebhooks reaches SwitchboardReaders (SwitchboardWebhooks ->"
                    + " SwitchboardReaders): webhooks' decisions must stay free of I/O (system calls, loops, HTTP,"
                    + " the database)",
                "Package.swift: SwitchboardWebhooks depends on the C module CVips: it may reach C only through"
                    + " the Swift modules that wrap it",
            ])
    }
}
