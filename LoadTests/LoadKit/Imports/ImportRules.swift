/// The module layering Package.swift declares, held against the sources
/// (`loadtest check-imports`): every import declared, libc and Foundation only
/// where they belong, the chat core kept apart from the loop, HTTP, TLS and
/// the server's wiring, and routing's, attachments' and webhooks' decisions apart from any I/O.
public enum ImportRules {
    static let cModules: Set = ["CSystem", "CLibPQ", "COpenSSL", "CZlib", "CVips"]
    static let libc: Set = ["Glibc", "Musl", "Darwin"]
    static let everywhere: Set = ["Swift", "Synchronization", "_Concurrency"]
    static let buildTools: Set = ["PackagePlugin"]
    static let testOnly: Set = ["Testing", "XCTest", "Foundation", "Dispatch"]
    /// target -> modules it may not reach, directly or through its dependencies' own.
    static let forbiddenBelow = [
        "SwitchboardChatCore": ["SwitchboardLoop", "SwitchboardHTTP", "SwitchboardTLS", "SwitchboardServer"],
        "SwitchboardRouting": [
            "SwitchboardSystem", "SwitchboardLoop", "SwitchboardHTTP", "SwitchboardTLS", "SwitchboardServer",
            "SwitchboardPostgres", "SwitchboardReaders", "SwitchboardWriter", "SwitchboardChatCore",
            "SwitchboardCluster", "SwitchboardNATS",
        ],
        "SwitchboardAttachments": [
            "SwitchboardSystem", "SwitchboardIO", "SwitchboardLoop", "SwitchboardHTTP", "SwitchboardTLS",
            "SwitchboardServer", "SwitchboardPostgres", "SwitchboardStore", "SwitchboardReaders", "SwitchboardWriter",
            "SwitchboardChatCore", "SwitchboardCluster", "SwitchboardNATS",
        ],
        "SwitchboardWebhooks": [
            "SwitchboardSystem", "SwitchboardIO", "SwitchboardLoop", "SwitchboardHTTP", "SwitchboardTLS",
            "SwitchboardServer", "SwitchboardPostgres", "SwitchboardStore", "SwitchboardReaders", "SwitchboardWriter",
            "SwitchboardChatCore", "SwitchboardCluster", "SwitchboardNATS",
        ],
    ]
    /// Why each `forbiddenBelow` target keeps its distance (said with each violation).
    static let layerReasons = [
        "SwitchboardChatCore": "the chat core must stay free of the loop, HTTP, TLS and the server's wiring",
        "SwitchboardRouting": "routing's decisions must stay free of I/O (system calls, loops, HTTP, the database)",
        "SwitchboardAttachments":
            "attachments' decisions must stay free of I/O (system calls, loops, HTTP, the database)",
        "SwitchboardWebhooks": "webhooks' decisions must stay free of I/O (system calls, loops, HTTP, the database)",
    ]
    /// target -> modules it may not depend on itself (C it reaches only through the Swift modules that wrap it).
    static let forbiddenDirect = [
        "SwitchboardChatCore": cModules, "SwitchboardRouting": cModules, "SwitchboardAttachments": cModules,
        "SwitchboardWebhooks": cModules,
    ]

    /// The module an import line names (`@testable import X`, `import struct X.Y`), or nil.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
        while let first = words.first, ["@testable", "@_exported", "@preconcurrency"].contains(first) {
            words = words.dropFirst()
        }
        guard words.first == "import", var module = words.dropFirst().first else { return nil }
        if ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"].contains(module) {
            guard let next = words.dropFirst(2).first else { return nil }
            module = next
        }
        let name = module.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        guard let head = name.first, head.isLetter || head == "_", head.isASCII else { return nil }
        return String(name)
    }

    /// The import violations of one target's file (`text`, at `path` for the messages).
    static func check(_ text: String, path: String, target: PackageTarget, known: Set<String>) -> [String] {
        let allowed = Set(target.dependencies).union(everywhere)
        let relaxed = target.isTestOrHarness
        let wrapsC = !cModules.isDisjoint(with: target.dependencies)
        var problems: [String] = []
        var inString = false  // inside a multi-line string literal (embedded SQL, JSON...)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let quotes = line.ranges(of: "\"\"\"").count
            let wasInString = inString
            if quotes % 2 == 1 { inString.toggle() }
            guard !wasInString, quotes == 0, let module = importedModule(line) else { continue }
            if allowed.contains(module) || (libc.contains(module) && (wrapsC || relaxed))
                || (testOnly.contains(module) && relaxed) || (buildTools.contains(module) && target.type == "plugin")
            {
                continue
            }
            let why =
                libc.contains(module)
                ? "the C library is for targets that wrap C (they depend on a C module)"
                : testOnly.contains(module)
                    ? "\(module) is for tests and load harnesses only"
                    : known.contains(module)
                        ? "not a declared dependency in Package.swift"
                        : "not a declared dependency (or a product of one) in Package.swift"
            let declared =
                target.dependencies.isEmpty ? "nothing" : target.dependencies.sorted().joined(separator: ", ")
            problems.append(
                "\(path):\(index + 1): \(target.name) imports \(module): \(why) (it may import: \(declared))")
        }
        return problems
    }

    /// Each `forbiddenBelow` target's whole dependency closure, against what it may not reach.
    static func checkLayers(_ targets: [PackageTarget]) -> [String] {
        let byName = Dictionary(targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for (name, forbidden) in forbiddenBelow.sorted(by: { $0.key < $1.key }) {
            guard let target = byName[name] else {
                problems.append("check-imports: no target \(name) (forbiddenBelow names it)")
                continue
            }
            var paths: [String: [String]] = [:]
            var queue: [String] = []
            for dependency in target.dependencies where paths[dependency] == nil {
                paths[dependency] = [name, dependency]
                queue.append(dependency)
            }
            while !queue.isEmpty {
                let current = queue.removeFirst()
                for dependency in byName[current]?.dependencies ?? [] where paths[dependency] == nil {
                    paths[dependency] = paths[current]! + [dependency]
                    queue.append(dependency)
                }
            }
            for reached in forbidden.sorted() where paths[reached] != nil {
                problems.append(
                    "Package.swift: \(name) reaches \(reached) (\(paths[reached]!.joined(separator: " -> "))): "
                        + (layerReasons[name] ?? "a layering rule forbids it"))
            }
            for direct in (forbiddenDirect[name] ?? []).sorted() where target.dependencies.contains(direct) {
                problems.append(
                    "Package.swift: \(name) depends on the C module \(direct): it may reach C only "
                        + "through the Swift modules that wrap it")
            }
        }
        return problems
    }
}
