import Synchronization

/// Per-address limits on open connections and on the rate of new ones,
/// shared by every event loop.
///
/// Shared rather than per loop: with `SO_REUSEPORT` the kernel spreads one
/// address's connections over the loops by hash, so a per-loop share of the
/// limit (256 / 16 loops = 16) would refuse a client well before the limit
/// when its connections happen to land unevenly. The table is split into
/// shards by the address's hash, each behind its own mutex held for one
/// dictionary lookup: one uncontended lock at accept and one at close,
/// nothing on the read and write paths.
///
/// Bounded: an entry exists while its address has open connections or a
/// bucket that has not refilled; it is dropped when the last connection
/// closes with the bucket full, or in a sweep when its shard is full. When a
/// shard is full of live entries a new address is admitted untracked
/// (`.untracked`): the table must not become the way to shut everyone out.
public final class AddressLimiter: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Open connections per address; 0: no limit.
        public var maxConnections: Int
        /// New connections per second per address; 0: no limit.
        public var ratePerSecond: Int
        public var burst: Int
        /// Entries in the whole table (split evenly among the shards).
        public var tableCapacity: Int
        /// A rate a minute instead of a second, when `ratePerSecond` is 0 (uploads
        /// per address); 0: none.
        public var ratePerMinute: Int

        public init(maxConnections: Int, ratePerSecond: Int, burst: Int, tableCapacity: Int, ratePerMinute: Int = 0) {
            self.maxConnections = maxConnections
            self.ratePerSecond = ratePerSecond
            self.burst = burst
            self.tableCapacity = tableCapacity
            self.ratePerMinute = ratePerMinute
        }

        public var isEnabled: Bool { maxConnections > 0 || ratePerSecond > 0 || ratePerMinute > 0 }

        /// A full bucket for a new address, or nil without a rate.
        func newBucket(nowMilliseconds now: UInt64) -> TokenBucket? {
            if ratePerSecond > 0 {
                return TokenBucket(ratePerSecond: ratePerSecond, burst: burst, nowMilliseconds: now)
            }
            if ratePerMinute > 0 { return TokenBucket(perMinute: ratePerMinute, burst: burst, nowMilliseconds: now) }
            return nil
        }
    }

    public enum Decision: Equatable, Sendable {
        /// Counted: call `release` when the connection closes.
        case admitted
        /// Let through without counting (the table is full): do not release.
        case untracked
        /// The address has `maxConnections` open.
        case tooManyConnections
        /// The address's bucket is empty; a token comes in `retryAfterSeconds`.
        case tooFast(retryAfterSeconds: Int)
    }

    struct Entry {
        var open: Int
        var bucket: TokenBucket?
    }

    struct ShardState {
        var entries: [IPAddress: Entry] = [:]
        /// When a full shard was last swept: at most one sweep per second, so
        /// a shard full of live entries does not cost a scan per accept.
        var sweptAt: UInt64 = 0
        var swept = false
    }

    final class Shard: Sendable {
        let state = Mutex(ShardState())
    }

    public let limits: Limits
    private let shards: [Shard]
    private let shardCapacity: Int

    public static let shardCount = 64

    public init(limits: Limits) {
        self.limits = limits
        shards = (0..<Self.shardCount).map { _ in Shard() }
        shardCapacity = max(1, limits.tableCapacity / Self.shardCount)
    }

    private func shard(for key: IPAddress) -> Shard {
        // Fibonacci hashing of both halves: stable, and spreads adjacent addresses.
        let mixed = (key.high ^ key.low &* 0x9E37_79B9_7F4A_7C15) &* 0x9E37_79B9_7F4A_7C15
        return shards[Int(mixed >> 58) % Self.shardCount]
    }

    /// Counts a new connection from `address` (by its `limitKey`), or says why not.
    public func acquire(_ address: IPAddress, nowMilliseconds now: UInt64) -> Decision {
        guard limits.isEnabled else { return .untracked }
        let key = address.limitKey
        let limits = self.limits
        let capacity = shardCapacity
        return shard(for: key).state.withLock { state in
            if var entry = state.entries[key] {
                if limits.maxConnections > 0 && entry.open >= limits.maxConnections { return .tooManyConnections }
                if entry.bucket != nil && !entry.bucket!.take(nowMilliseconds: now) {
                    let wait = entry.bucket!.secondsUntilNextToken(nowMilliseconds: now)
                    state.entries[key] = entry
                    return .tooFast(retryAfterSeconds: wait)
                }
                entry.open += 1
                state.entries[key] = entry
                return .admitted
            }
            if state.entries.count >= capacity {
                guard !state.swept || now >= state.sweptAt + 1000 else { return .untracked }
                state.swept = true
                state.sweptAt = now
                Self.sweep(&state.entries, now: now)
                if state.entries.count >= capacity { return .untracked }
            }
            var bucket = limits.newBucket(nowMilliseconds: now)
            if bucket != nil { _ = bucket!.take(nowMilliseconds: now) }
            state.entries[key] = Entry(open: 1, bucket: bucket)
            return .admitted
        }
    }

    /// One connection admitted with `.admitted` has closed.
    public func release(_ address: IPAddress, nowMilliseconds now: UInt64) {
        let key = address.limitKey
        shard(for: key).state.withLock { state in
            guard var entry = state.entries[key] else { return }
            entry.open = max(0, entry.open - 1)
            if entry.open == 0 && (entry.bucket?.isFull(nowMilliseconds: now) ?? true) {
                state.entries[key] = nil
            } else {
                state.entries[key] = entry
            }
        }
    }

    /// Drops entries with nothing open and a full bucket.
    private static func sweep(_ entries: inout [IPAddress: Entry], now: UInt64) {
        entries = entries.filter { $0.value.open > 0 || !($0.value.bucket?.isFull(nowMilliseconds: now) ?? true) }
    }

    /// Entries in the table (tests, diagnostics).
    public var entryCount: Int {
        shards.reduce(0) { sum, shard in sum + shard.state.withLock { $0.entries.count } }
    }

    /// Open connections counted for `address`'s key.
    public func openConnections(_ address: IPAddress) -> Int {
        let key = address.limitKey
        return shard(for: key).state.withLock { $0.entries[key]?.open ?? 0 }
    }

    /// Runs the sweep on every shard (tests; the table also sweeps itself when a shard fills).
    public func sweep(nowMilliseconds now: UInt64) {
        for shard in shards { shard.state.withLock { Self.sweep(&$0.entries, now: now) } }
    }
}
