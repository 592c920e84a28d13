/// The machine's CPU counters, from the first line of /proc/stat (clock
/// ticks, every CPU together), by name. One reader for the CPU sampler and
/// the soak's steal, so that both count the same ticks as busy.
struct CPUCounters: Equatable {
    var user = 0
    var nice = 0
    var system = 0
    var idle = 0
    var ioWait = 0
    var irq = 0
    var softIRQ = 0
    /// Ticks the hypervisor gave to other guests; nil on a kernel without the figure.
    var steal: Int?

    /// Ticks this machine's own work ran: not idle, not waiting for I/O, and
    /// not stolen by the host (a neighbour's work is not ours). `guest` and
    /// `guest_nice` are left out: the kernel already counts them in `user` and `nice`.
    var busy: Int { user + nice + system + irq + softIRQ }

    /// The counters of a /proc/stat text; nil unless it starts with the
    /// aggregate "cpu" line and has at least the first seven figures.
    init?(stat: String) {
        guard let line = stat.split(separator: "\n", maxSplits: 1).first, line.hasPrefix("cpu ") else { return nil }
        let figures = line.split(separator: " ").dropFirst().map { Int($0) }
        guard figures.count >= 7, figures.prefix(7).allSatisfy({ $0 != nil }) else { return nil }
        let known = figures.map { $0 ?? 0 }
        (user, nice, system, idle, ioWait, irq, softIRQ) = (
            known[0], known[1], known[2], known[3], known[4], known[5], known[6]
        )
        steal = figures.count > 7 ? figures[7] : nil
    }
}
