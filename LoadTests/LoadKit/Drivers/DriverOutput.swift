#if canImport(Glibc)
import Glibc
#endif

/// What the small `loadtest` drivers share: their messages and their exit statuses
/// (0 done, 1 the thing checked failed, 2 a usage or set-up error).
enum DriverOutput {
    static func standardError(_ text: String) {
        let line = text + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    /// Says `message` as `loadtest DRIVER: message` and returns 2.
    static func usage(_ driver: String, _ message: String) -> Int32 {
        standardError("loadtest \(driver): \(message)")
        return 2
    }

    /// Runs `body`: 0 when it returns, 1 (saying why) when it throws.
    static func failing(_ driver: String, _ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            standardError("loadtest \(driver): \(error)")
            return 1
        }
    }

    /// Whether the arguments ask for help (then `text` is printed).
    static func help(_ arguments: [String], _ text: String) -> Bool {
        guard arguments.contains("--help") || arguments.contains("-h") else { return false }
        print(text)
        return true
    }
}
