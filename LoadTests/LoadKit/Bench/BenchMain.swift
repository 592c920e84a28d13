/// The bench drivers' entry point: `DriverMain`, and `--check`, which their
/// scripts ask before any set-up: exit 0 when a run would start, 2 for a
/// usage error, 1 (after the usage) for --help.
enum BenchMain {
    static func run<Options>(
        _ arguments: [String], usage: String, tag: String,
        parse: ([String]) throws(DriverFlags.UsageError) -> Options, run: (Options, DriveLog) throws -> Bool
    ) -> Int32 {
        guard arguments.contains("--check") else {
            return DriverMain.run(arguments, usage: usage, tag: tag, parse: parse) { options, log throws(DriveError) in
                do {
                    return try run(options, log)
                } catch let error as DriveError {
                    throw error
                } catch {
                    throw DriveError("\(error)")
                }
            }
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 1
        }
        return DriverMain.run(arguments, usage: usage, tag: tag, parse: parse) { _, _ in true }
    }
}
