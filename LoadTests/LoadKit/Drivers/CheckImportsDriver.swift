/// `loadtest check-imports [--write]`: the module layering of Package.swift, checked and documented.
public enum CheckImportsDriver {
    static let help = """
        usage: loadtest check-imports [--write]      (scripts/check-imports)

        Reads the targets from `swift package dump-package` (offline), in the package
        at $SB_ROOT or here, and checks:

        1. Every `import X` (plain, @testable, @_exported, `import struct X.Y`) in a
           target's Swift files names one of its declared dependencies, or a module
           every file may import (Swift, Synchronization, _Concurrency). A module a
           target could import only because a dependency depends on it is a violation.
        2. The C library (Glibc; Musl and Darwin under `#if canImport`) is imported
           only by targets that wrap C (those depending on CSystem, CLibPQ, COpenSSL,
           CZlib or CVips), by the load harnesses under LoadTests/, by build tools under
           Plugins/ and by tests; Foundation (and Dispatch) by tests and harnesses
           only. Lines inside multi-line string literals are skipped.
        3. The chat core (SwitchboardChatCore) reaches neither directly nor through
           any dependency the event loop, HTTP, TLS or the server's wiring, and
           depends on no C module itself. Neither routing's decisions
           (SwitchboardRouting) nor attachments' (SwitchboardAttachments) reach
           system calls, loops, HTTP, TLS or the database, nor depend on C themselves.
        4. The table between <!-- modules:begin --> and <!-- modules:end --> in
           docs/architecture.md lists every target that is not a test, bottom first,
           with the dependencies Package.swift gives it; each row's job text is kept.
           --write rewrites the table.

        Exit status: 0 all good, 1 violations or a stale table (with --write only
        import violations fail), 2 a usage or set-up error.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        if DriverOutput.help(arguments, help) { return 0 }
        guard arguments.allSatisfy({ $0 == "--write" }) else {
            return DriverOutput.usage("check-imports", "unknown argument \(arguments) (--help)")
        }
        let root = BenchmarksDoc.root
        let doc = root + "/docs/architecture.md"
        do {
            let targets = try PackageTarget.load(root: root)
            let known = Set(targets.map(\.name))
            var problems: [String] = []
            for target in targets where target.type != "system" {
                for path in Directory.swiftFiles(root + "/" + target.path) {
                    let text = try TextFile.readNormalizingNewlines(path)
                    problems += ImportRules.check(
                        text, path: String(path.dropFirst(root.count + 1)), target: target, known: known)
                }
            }
            problems += ImportRules.checkLayers(targets)
            let document = try ModuleTable.read(try TextFile.read(doc))
            let (table, missing) = try ModuleTable.render(targets, jobs: document.jobs)
            var stale = document.body != table
            if arguments.contains("--write") && stale {
                try TextFile.write(doc, document.head + ModuleTable.begin + table + ModuleTable.end + document.tail)
                print("check-imports: rewrote the module table in docs/architecture.md")
                stale = false
            }
            for problem in problems { print(problem) }
            if !missing.isEmpty {
                print("check-imports: no job text in docs/architecture.md for: \(missing.joined(separator: ", "))")
            }
            if stale {
                print(
                    "check-imports: the module table in docs/architecture.md is not what Package.swift says; "
                        + "run scripts/check-imports --write")
            }
            if !problems.isEmpty || stale || !missing.isEmpty { return 1 }
            print("check-imports: \(targets.count) targets, every import declared; the module table is current")
            return 0
        } catch let error as ReportError {
            return DriverOutput.usage("check-imports", error.description)
        } catch {
            return DriverOutput.usage("check-imports", "\(error)")
        }
    }
}
