#if canImport(Glibc)
import Glibc
#endif

/// `loadtest doc SECTION ...`: writes one benchmark's section of docs/benchmarks.md
/// (or the fuzzing campaign's of docs/conformance.md) from the benchmark's output.
public enum DocDriver {
    static let help = """
        usage: loadtest doc transport RESULTS SECONDS CONNECTIONS IDLE [--file PATH]
               loadtest doc writer RESULTS COMMAND [--file PATH]
               loadtest doc chat-floor RESULTS RATE COMMAND [--file PATH]
               loadtest doc fuzz-campaign --command TEXT --started TEXT --minutes M --cpu-minutes C
                                          --parallel P TARGET... [--file PATH]

        Replaces (or appends) the section between <!-- NAME:begin --> and <!-- NAME:end -->
        and leaves the rest of the document as it is. RESULTS: the benchmark's output
        (transport-bench's or writer-bench's JSON lines, scripts/bench-chat-floor's rows),
        which also closes the section verbatim. fuzz-campaign reads Fuzz/.out/TARGET.log and
        Fuzz/corpus/TARGET/ and prints the section too. --file: the document (default
        docs/benchmarks.md, docs/conformance.md for fuzz-campaign, under $SB_ROOT or here).
        """

    public static func main(_ arguments: [String]) -> Int32 {
        if DriverOutput.help(arguments, help) { return 0 }
        var positional: [String] = []
        var file: String?
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--file", index + 1 < arguments.count {
                file = arguments[index + 1]
                index += 2
            } else {
                positional.append(arguments[index])
                index += 1
            }
        }
        guard let section = positional.first else { return DriverOutput.usage("doc", "which section? (--help)") }
        let rest = Array(positional.dropFirst())
        do {
            switch (section, rest.count) {
            case ("transport", 4):
                let body = TransportSection.render(
                    output: try TextFile.readNormalizingNewlines(rest[0]), seconds: rest[1], connections: rest[2],
                    idle: rest[3])
                try BenchmarksDoc.replaceSection(TransportSection.name, with: body, path: file ?? BenchmarksDoc.path)
            case ("writer", 2):
                let body = WriterSection.render(output: try TextFile.readNormalizingNewlines(rest[0]), command: rest[1])
                try BenchmarksDoc.replaceSection(WriterSection.name, with: body, path: file ?? BenchmarksDoc.path)
            case ("chat-floor", 3):
                guard let rate = Int(rest[1]) else { return DriverOutput.usage("doc", "RATE: a whole number") }
                let body = ChatFloorSection.render(
                    output: try TextFile.readNormalizingNewlines(rest[0]), rate: rate, command: rest[2])
                try BenchmarksDoc.replaceSection(ChatFloorSection.name, with: body, path: file ?? BenchmarksDoc.path)
            case ("fuzz-campaign", _):
                return try fuzzCampaign(rest, file: file ?? BenchmarksDoc.root + "/docs/conformance.md")
            default:
                return DriverOutput.usage(
                    "doc", "unknown section or wrong arguments: \(positional.joined(separator: " ")) (--help)")
            }
        } catch {
            return DriverOutput.usage("doc", error.description)
        }
        return 0
    }

    private static func fuzzCampaign(_ arguments: [String], file: String) throws(TextFile.Failure) -> Int32 {
        var values: [String: String] = [:]
        var targets: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--"), index + 1 < arguments.count {
                values[String(argument.dropFirst(2))] = arguments[index + 1]
                index += 2
            } else {
                targets.append(argument)
                index += 1
            }
        }
        guard let command = values["command"], let started = values["started"],
            let minutes = values["minutes"].flatMap({ Int($0) }),
            let parallel = values["parallel"].flatMap({ Int($0) }),
            let cpuMinutes = Int(values["cpu-minutes"] ?? "0"), !targets.isEmpty
        else {
            return DriverOutput.usage(
                "doc", "fuzz-campaign needs --command, --started, --minutes, --parallel and targets")
        }
        let root = BenchmarksDoc.root
        var rows: [FuzzCampaignSection.Target] = []
        for target in targets {
            let log = try TextFile.readNormalizingNewlines(root + "/Fuzz/.out/\(target).log")
            let kept = Directory.fileSizes(root + "/Fuzz/corpus/\(target)")
            rows.append(.init(name: target, log: log, keptFiles: kept.count, keptBytes: kept.reduce(0, +)))
        }
        let campaign = FuzzCampaignSection.Campaign(
            command: command, started: started, minutes: minutes, cpuMinutes: cpuMinutes, parallel: parallel,
            cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let body = FuzzCampaignSection.render(campaign, targets: rows)
        try BenchmarksDoc.replaceSection(FuzzCampaignSection.name, with: body, path: file)
        print("<!-- \(FuzzCampaignSection.name):begin -->\n" + body + "<!-- \(FuzzCampaignSection.name):end -->\n")
        return 0
    }
}
