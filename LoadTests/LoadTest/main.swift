import LoadKit

#if canImport(Glibc)
import Glibc
#endif

// loadtest: the gateway's load-test harness. Usage: `loadtest --help`.

func standardError(_ text: String) {
    let line = text + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let name = arguments.first, let entry = subcommands.first(where: { $0.name == name }) {
    exit(entry.run(Array(arguments.dropFirst())))
}
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(LoadOptions.usage + subcommandUsage())
    exit(arguments.isEmpty ? 2 : 0)
}
let options: LoadOptions
do {
    var environment: [String: String] = [:]
    for name in ["SWITCHBOARD_JWT_SECRET", "SWITCHBOARD_DATABASE_URL"] {
        if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    options = try LoadOptions(arguments: arguments, environment: environment)
} catch {
    standardError("loadtest: \(error)")
    exit(2)
}
if !options.outputDirectory.isEmpty {
    do {
        try ReportFiles.prepare(options.outputDirectory)
    } catch {
        standardError("loadtest: --out: \(error)")
        exit(2)
    }
}
let report: RunReport
do {
    report = try LoadRun.run(options) { standardError("loadtest: \($0)") }
} catch {
    standardError("loadtest: \(error)")
    exit(2)
}
print(TextReport.render(report))
if !options.outputDirectory.isEmpty {
    do {
        for path in try ReportFiles.write(report, to: options.outputDirectory) {
            standardError("loadtest: wrote \(path)")
        }
    } catch {
        standardError("loadtest: \(error)")
        exit(2)
    }
}
exit(report.passed ? 0 : 1)
