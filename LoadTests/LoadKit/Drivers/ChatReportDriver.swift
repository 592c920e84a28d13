import SwitchboardJSON

/// `loadtest chat-report DIR [--doc] [KEY VALUE]...`: scripts/bench's chat section.
public enum ChatReportDriver {
    static let help = """
        usage: loadtest chat-report REPORT_DIR [--doc] [KEY VALUE]...

        Renders the chat section of docs/benchmarks.md from one scripts/bench run:
        REPORT_DIR's SCENARIO.json reports and its run.json (the command, the
        PostgreSQL settings, each scenario's options, exit status and wall time).
        KEY VALUE pairs, when given, are written to REPORT_DIR/run.json first.
        The section goes to REPORT_DIR/benchmarks-chat.md; with --doc it also
        replaces the chat section of docs/benchmarks.md.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        if DriverOutput.help(arguments, help) { return 0 }
        guard let directory = arguments.first else {
            return DriverOutput.usage("chat-report", "no REPORT_DIR (--help)")
        }
        let doc = arguments.dropFirst().first == "--doc"
        let pairs = Array(arguments.dropFirst(doc ? 2 : 1))
        guard pairs.count % 2 == 0 else { return DriverOutput.usage("chat-report", "KEY VALUE pairs, not \(pairs)") }
        do {
            if !pairs.isEmpty {
                let members = stride(from: 0, to: pairs.count, by: 2).map { (pairs[$0], pairs[$0 + 1]) }
                try TextFile.write(directory + "/run.json", runJSON(members))
            }
            let input = load(directory)
            let body = ChatSection.render(input, machine: BenchmarksDoc.machine())
            let out = directory + "/benchmarks-chat.md"
            try TextFile.write(out, body)
            DriverOutput.standardError("loadtest chat-report: wrote \(out)")
            if doc {
                try BenchmarksDoc.replaceSection(ChatSection.name, with: body)
                DriverOutput.standardError("loadtest chat-report: replaced the chat section of docs/benchmarks.md")
            }
        } catch {
            return DriverOutput.usage("chat-report", error.description)
        }
        return 0
    }

    /// run.json as scripts/bench has always written it (`json.dump(..., indent=1)`).
    static func runJSON(_ members: [(String, String)]) -> String {
        var seen: [String] = []
        var values: [String: String] = [:]
        for (key, value) in members {
            if values[key] == nil { seen.append(key) }
            values[key] = value
        }
        if seen.isEmpty { return "{}" }
        let lines = seen.map { " " + PythonFormat.jsonString($0) + ": " + PythonFormat.jsonString(values[$0]!) }
        return "{\n" + lines.joined(separator: ",\n") + "\n}"
    }

    /// The run's files; a file that is missing or not JSON counts as absent (said when it exists).
    static func load(_ directory: String) -> ChatSection.Run {
        func read(_ name: String) -> JSONValue? {
            let path = directory + "/" + name
            guard TextFile.exists(path) else { return nil }
            do {
                let value = try JSONParser.parse(try TextFile.read(path), limits: .reports)
                return value == .null ? nil : value
            } catch {
                DriverOutput.standardError("loadtest chat-report: cannot read \(path): \(error)")
                return nil
            }
        }
        var reports: [String: JSONValue] = [:]
        for scenario in ChatSection.scenarios { reports[scenario] = read(scenario + ".json") }
        return ChatSection.Run(
            run: read("run.json")?.objectValue ?? JSONObject(), reports: reports, directory: shown(directory))
    }

    /// The directory relative to the repository's root when inside it, else absolute.
    static func shown(_ directory: String) -> String {
        let root = normalized(BenchmarksDoc.root)
        let path = normalized(directory.hasPrefix("/") ? directory : BenchmarksDoc.currentDirectory + "/" + directory)
        if path == root { return "." }
        return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

    /// `os.path.normpath` of an absolute path: no `.`, `..` or doubled slashes.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else {
                parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
