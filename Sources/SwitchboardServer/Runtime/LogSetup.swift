import Logging

/// Process-wide logging: one line per event on standard error.
public enum LogSetup {
    public static func bootstrap(level: String) -> Logger {
        let parsed = Logger.Level(rawValue: level) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = parsed
            return handler
        }
        var logger = Logger(label: "switchboard")
        logger.logLevel = parsed
        return logger
    }
}
