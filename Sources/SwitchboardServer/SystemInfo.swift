import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine the gateway runs on.
public enum SystemInfo {
    /// CPUs this process may run on: respects taskset and cgroup CPU sets, so a
    /// pinned gateway does not start more loops than it has cores.
    public static var coreCount: Int {
        let allowed = Int(csystem_available_cpus())
        if allowed > 0 { return allowed }
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
