import SwitchboardAdmission
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardMetrics
import SwitchboardSystem
import Synchronization

/// Why a connection was turned away before it was served.
typealias RefusalReason = ConnectionRefusal

/// Decides at accept (and, behind a trusted proxy, once the client's address
/// is known) whether a connection is served. Shared by every loop; the
/// per-address table is `AddressLimiter`'s (docs/limits.md).
final class AdmissionControl: Sendable {
    let limiter: AddressLimiter
    let exempt: IPNetworkSet
    let trustedProxies: IPNetworkSet
    private let metrics: GatewayMetrics
    private let refusedMaxConnections = Atomic<Int>(0)
    private let refusedPerIPConnections = Atomic<Int>(0)
    private let refusedPerIPRate = Atomic<Int>(0)

    enum Verdict {
        /// Serve it. `ticket` releases the address's count on close (nil: not
        /// counted); `viaTrustedProxy`: the client's address is still to come
        /// from a PROXY header or X-Forwarded-For.
        case admit(ticket: AddressTicket?, viaTrustedProxy: Bool)
        case refuse(RefusalReason, response: [UInt8])
    }

    init(configuration: Configuration, metrics: GatewayMetrics) {
        self.metrics = metrics
        limiter = AddressLimiter(
            limits: AddressLimiter.Limits(
                maxConnections: configuration.maxConnectionsPerIP,
                ratePerSecond: configuration.connectionRatePerIP,
                burst: configuration.connectionBurstPerIP,
                tableCapacity: configuration.ipTableEntries))
        // Checked by Configuration.validate.
        exempt = (try? IPNetworkSet.parse(configuration.ipLimitExempt).get()) ?? IPNetworkSet([])
        trustedProxies = (try? IPNetworkSet.parse(configuration.trustedProxies).get()) ?? IPNetworkSet([])
    }

    /// A connection just accepted from `peer`.
    func admit(peer: IPAddress, nowMilliseconds now: UInt64) -> Verdict {
        if !trustedProxies.isEmpty && trustedProxies.contains(peer) {
            // A proxy carries many clients: each is counted once it is named.
            return .admit(ticket: nil, viaTrustedProxy: true)
        }
        return admitClient(peer, nowMilliseconds: now)
    }

    /// The client a trusted proxy named (PROXY header or X-Forwarded-For).
    func admitForwarded(client: IPAddress, nowMilliseconds now: UInt64) -> Verdict {
        if trustedProxies.contains(client) { return .admit(ticket: nil, viaTrustedProxy: false) }
        return admitClient(client, nowMilliseconds: now)
    }

    private func admitClient(_ address: IPAddress, nowMilliseconds now: UInt64) -> Verdict {
        guard limiter.limits.isEnabled, !exempt.contains(address) else {
            return .admit(ticket: nil, viaTrustedProxy: false)
        }
        switch limiter.acquire(address, nowMilliseconds: now) {
        case .admitted:
            return .admit(ticket: AddressTicket(address: address, limiter: limiter), viaTrustedProxy: false)
        case .untracked:
            return .admit(ticket: nil, viaTrustedProxy: false)
        case .tooManyConnections:
            return .refuse(.perIPConnections, response: Self.tooManyConnections)
        case .tooFast(let seconds):
            return .refuse(.perIPRate, response: seconds == 1 ? Self.tooFast : Self.tooFast(retryAfter: seconds))
        }
    }

    /// The one place refusals are counted.
    func count(_ reason: RefusalReason) {
        metrics.connectionsRefused(reason).increment()
        switch reason {
        case .maxConnections: refusedMaxConnections.add(1, ordering: .relaxed)
        case .perIPConnections: refusedPerIPConnections.add(1, ordering: .relaxed)
        case .perIPRate: refusedPerIPRate.add(1, ordering: .relaxed)
        }
    }

    /// Connections refused so far for `reason`.
    func refused(_ reason: RefusalReason) -> Int {
        switch reason {
        case .maxConnections: refusedMaxConnections.load(ordering: .relaxed)
        case .perIPConnections: refusedPerIPConnections.load(ordering: .relaxed)
        case .perIPRate: refusedPerIPRate.load(ordering: .relaxed)
        }
    }

    // MARK: Canned responses, serialized once

    /// Seconds a client over its connection count is asked to wait: connections
    /// free up as the address's others close, which nothing here can predict.
    static let connectionsRetryAfter = 5

    static let tooManyConnections = response(
        .tooManyRequests, code: "rate_limited", message: "too many connections from this address",
        retryAfter: connectionsRetryAfter)
    static let tooFast = tooFast(retryAfter: 1)
    static let overloaded = response(
        .serviceUnavailable, code: "overloaded", message: "the gateway is at its connection limit; retry later",
        retryAfter: 1)

    static func tooFast(retryAfter seconds: Int) -> [UInt8] {
        response(
            .tooManyRequests, code: "rate_limited", message: "too many new connections from this address",
            retryAfter: seconds)
    }

    static func response(_ status: HTTPStatus, code: String, message: String, retryAfter: Int) -> [UInt8] {
        var response = HTTPResponse.error(status, code: code, message: message)
        response.headers.append(("Retry-After", String(retryAfter)))
        return response.serialize(keepAlive: false)
    }
}

/// One counted connection: gives its address's count back when it closes.
final class AddressTicket: ConnectionCloseObserver {
    let address: IPAddress
    let limiter: AddressLimiter

    init(address: IPAddress, limiter: AddressLimiter) {
        self.address = address
        self.limiter = limiter
    }

    func connectionClosed(nowMilliseconds now: UInt64) {
        release(nowMilliseconds: now)
    }

    func release(nowMilliseconds now: UInt64) {
        limiter.release(address, nowMilliseconds: now)
    }
}
