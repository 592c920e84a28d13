/// The command line of a `loadtest` driver: `--name value` options (also
/// `--name=value`), `--name` switches and bare words, checked against what
/// the driver declares. Each driver keeps its own `--help` text.
public struct DriverFlags: Sendable {
    public struct UsageError: Error, CustomStringConvertible {
        public let description: String
    }

    public private(set) var values: [String: String] = [:]
    public private(set) var switches: Set<String> = []
    public private(set) var positional: [String] = []

    /// `options` take a value, `switchNames` do not (names without the dashes).
    public init(_ arguments: [String], options: [String], switchNames: [String] = []) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if switchNames.contains(name) && inline == nil {
                switches.insert(name)
            } else if options.contains(name) {
                if let inline {
                    values[name] = inline
                } else {
                    guard index < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
                    values[name] = arguments[index]
                    index += 1
                }
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
    }

    public func has(_ name: String) -> Bool { switches.contains(name) }

    public func string(_ name: String) -> String? { values[name] }

    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = values[name], !value.isEmpty else { throw UsageError(description: "--\(name) is required") }
        return value
    }

    public func int(_ name: String, default fallback: Int) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else {
            throw UsageError(description: "--\(name) needs a whole number, not \(text)")
        }
        return value
    }

    /// `--name`'s whole number within `range`, or nil when it is not given.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard values[name] != nil else { return nil }
        let value = try int(name, default: 0)
        guard range.contains(value) else {
            throw UsageError(description: "--\(name) takes \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    public func double(_ name: String, default fallback: Double) throws(UsageError) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value.isFinite else {
            throw UsageError(description: "--\(name) needs a number, not \(text)")
        }
        return value
    }
}

/// The frame of a `loadtest` driver's entry point: `--help` prints `usage`
/// (exit 0); a usage error is logged (exit 2); `run` returns whether the run
/// passed (exit 0 or 1); a set-up error it throws is logged (exit 2).
public enum DriverMain {
    public static func run<Options>(
        _ arguments: [String], usage: String, tag: String,
        parse: ([String]) throws(DriverFlags.UsageError) -> Options,
        run: (Options, DriveLog) throws(DriveError) -> Bool
    ) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let log = DriveLog(tag: tag)
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            log("error: \(error) (loadtest \(tag) --help)")
            return 2
        }
        do {
            return try run(options, log) ? 0 : 1
        } catch {
            log("error: \(error)")
            return 2
        }
    }
}
