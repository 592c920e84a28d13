import SwitchboardSystem

/// A driver's `main`: usage errors exit 2 with the usage, set-up and run errors 1.
public enum DriverMain {
    public static func run(
        _ name: String, usage: String, _ arguments: [String], _ body: () throws -> Int32
    ) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            // `--check` asks whether a run would start: not with --help.
            return arguments.contains("--check") ? 1 : 0
        }
        do {
            return try body()
        } catch let error as DriverFlags.UsageError {
            ThisProcess.writeStandardError("loadtest \(name): \(error)\n\n\(usage)\n")
            return 2
        } catch {
            ThisProcess.writeStandardError("loadtest \(name): \(error)\n")
            return 1
        }
    }
}
