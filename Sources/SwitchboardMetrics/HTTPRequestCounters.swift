import Prometheus
import Synchronization

/// The `switchboard_http_requests_total{route,status}` series, created on first use.
///
/// Common status codes have a slot per route holding the counter once created: after the first
/// request of a (route, status) pair, finding its counter is one acquiring atomic load. Creation,
/// and every request with an uncommon status, goes through a lock (rare). Statuses outside
/// 100...599 share the label `status="other"`, so the label set stays bounded.
final class HTTPRequestCounters: @unchecked Sendable {
    // @unchecked: `slots` is written only through its atomics; the counters it points at are kept
    // alive by `created`, which is guarded by a Mutex and never shrinks.

    static let name = "switchboard_http_requests_total"
    static let help = "HTTP requests answered, by route and status code."

    /// Status codes that get a lock-free slot.
    static let commonStatuses: [Int] = [
        101, 200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 405, 408, 409, 410, 411, 413, 414, 415, 422, 426,
        429, 431, 500, 501, 502, 503, 504, 505,
    ]

    private static let slotIndexByStatus: [Int] = {
        var table = [Int](repeating: -1, count: 600)
        for (index, status) in commonStatuses.enumerated() {
            table[status] = index
        }
        return table
    }()

    private struct Key: Hashable {
        let route: HTTPRoute
        let status: Int
    }

    private let registry: PrometheusCollectorRegistry
    private let descriptor: MetricNameDescriptor
    private let slotCount: Int
    /// `Unmanaged<Counter>` bit patterns; 0 until the pair's counter exists.
    private let slots: UnsafeMutablePointer<Atomic<UInt>>
    private let created = Mutex<[Key: Prometheus.Counter]>([:])

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.descriptor = MetricNameDescriptor(metricName: Self.name, unitName: "", helpText: Self.help)
        self.slotCount = HTTPRoute.allCases.count * Self.commonStatuses.count
        self.slots = .allocate(capacity: slotCount)
        for index in 0..<slotCount {
            (slots + index).initialize(to: Atomic<UInt>(0))
        }
    }

    deinit {
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    func counter(route: HTTPRoute, status: Int) -> CounterHandle {
        let statusSlot = (100..<600).contains(status) ? Self.slotIndexByStatus[status] : -1
        guard statusSlot >= 0 else {
            return CounterHandle(create(route: route, status: (100..<600).contains(status) ? status : -1, slot: nil))
        }
        let slot = route.index * Self.commonStatuses.count + statusSlot
        let bits = slots[slot].load(ordering: .acquiring)
        if bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) {
            return CounterHandle(Unmanaged<Prometheus.Counter>.fromOpaque(pointer).takeUnretainedValue())
        }
        return CounterHandle(create(route: route, status: status, slot: slot))
    }

    private func create(route: HTTPRoute, status: Int, slot: Int?) -> Prometheus.Counter {
        created.withLock { created in
            let key = Key(route: route, status: status)
            if let existing = created[key] {
                return existing
            }
            let statusLabel = status < 0 ? "other" : String(status)
            let counter = registry.makeCounter(
                descriptor: descriptor, labels: [("route", route.rawValue), ("status", statusLabel)])
            created[key] = counter
            if let slot {
                let bits = UInt(bitPattern: Unmanaged.passUnretained(counter).toOpaque())
                slots[slot].store(bits, ordering: .releasing)
            }
            return counter
        }
    }
}
