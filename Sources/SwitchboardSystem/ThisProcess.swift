import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// Facts about and settings of the process itself.
public enum ThisProcess {
    /// CPUs this process may run on: respects taskset and cgroup CPU sets, so
    /// a pinned gateway does not start more loops than it has cores.
    public static var availableCPUCount: Int {
        let allowed = Int(csystem_available_cpus())
        if allowed > 0 { return allowed }
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The environment variable `name`, if set.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The whole environment.
    public static var environment: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Sets `name` unless it is already set (libpq reads some settings only from there).
    public static func setEnvironmentDefault(_ name: String, _ value: String) {
        setenv(name, value, 0)
    }

    /// Writes `text` to standard error, unbuffered (a last word before exiting).
    public static func writeStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }

    /// Sleeps the calling thread (never an event loop's).
    /// This machine's host name ("host" when it cannot be read).
    public static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return "host" }
        let text = String(cString: name)
        return text.isEmpty ? "host" : text
    }

    /// This process's id.
    public static var id: Int32 { getpid() }

    public static func sleep(milliseconds: Int) {
        usleep(useconds_t(max(0, milliseconds)) * 1000)
    }

    /// Whether `path` names something that exists.
    public static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// A whole small file (start-up only: configuration); nil when it cannot be read.
    public static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }
}
