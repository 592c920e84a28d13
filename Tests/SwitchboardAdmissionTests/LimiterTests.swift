import SwitchboardAdmission
import Testing

/// Outside `#expect`, whose closure cannot mutate the bucket.
private func take(_ bucket: inout TokenBucket, _ now: UInt64) -> Bool {
    bucket.take(nowMilliseconds: now)
}

struct TokenBucketTests {
    @Test func startsFullAndRefillsAtTheRate() {
        var bucket = TokenBucket(ratePerSecond: 10, burst: 3, nowMilliseconds: 1000)
        #expect(bucket.isFull(nowMilliseconds: 1000))
        #expect(take(&bucket, 1000))
        #expect(take(&bucket, 1000))
        #expect(take(&bucket, 1000))
        #expect(!take(&bucket, 1000))
        #expect(bucket.secondsUntilNextToken(nowMilliseconds: 1000) == 1)
        #expect(!take(&bucket, 1099))  // 0.99 tokens
        #expect(take(&bucket, 1100))
        #expect(!bucket.isFull(nowMilliseconds: 1300))
        #expect(bucket.isFull(nowMilliseconds: 1400))
        // Never above the burst, however long it waited.
        #expect(take(&bucket, 100_000))
        #expect(take(&bucket, 100_000))
        #expect(take(&bucket, 100_000))
        #expect(!take(&bucket, 100_000))
    }

    @Test func aClockGoingBackwardsRefillsNothing() {
        var bucket = TokenBucket(ratePerSecond: 1, burst: 1, nowMilliseconds: 5000)
        #expect(take(&bucket, 5000))
        #expect(!take(&bucket, 4000))
        #expect(!take(&bucket, 5999))
        #expect(take(&bucket, 6000))
    }

    /// 30 a minute: one token every 2 s after the burst; Retry-After in whole seconds.
    @Test func aRateAMinuteRefillsInSeconds() {
        var bucket = TokenBucket(perMinute: 30, burst: 2, nowMilliseconds: 0)
        #expect(take(&bucket, 0))
        #expect(take(&bucket, 0))
        #expect(!take(&bucket, 0))
        #expect(bucket.secondsUntilNextToken(nowMilliseconds: 0) == 2)
        #expect(!take(&bucket, 1999))
        #expect(take(&bucket, 2000))
        #expect(bucket.isFull(nowMilliseconds: 6000) && !bucket.isFull(nowMilliseconds: 5999))
    }

    @Test func retryAfterRoundsUpToWholeSeconds() {
        var bucket = TokenBucket(ratePerSecond: 1, burst: 1, nowMilliseconds: 0)
        #expect(take(&bucket, 0))
        #expect(bucket.secondsUntilNextToken(nowMilliseconds: 1) == 1)
        var slow = TokenBucket(ratePerSecond: 1, burst: 1, nowMilliseconds: 0)
        _ = take(&slow, 0)
        #expect(slow.secondsUntilNextToken(nowMilliseconds: 999) == 1)
    }
}

struct AddressLimiterTests {
    let a = IPAddress(parsing: "198.51.100.1")!
    let b = IPAddress(parsing: "198.51.100.2")!

    func limiter(max: Int, rate: Int = 0, burst: Int = 1, capacity: Int = 1 << 16) -> AddressLimiter {
        AddressLimiter(limits: .init(maxConnections: max, ratePerSecond: rate, burst: burst, tableCapacity: capacity))
    }

    @Test func countsOpenConnectionsPerAddress() {
        let limiter = limiter(max: 2)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .tooManyConnections)
        #expect(limiter.acquire(b, nowMilliseconds: 0) == .admitted)
        #expect(limiter.openConnections(a) == 2)
        limiter.release(a, nowMilliseconds: 0)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .tooManyConnections)
    }

    @Test func entriesAreFreedWhenTheLastConnectionClosesWithAFullBucket() {
        let limiter = limiter(max: 10, rate: 10, burst: 5)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)
        #expect(limiter.acquire(b, nowMilliseconds: 0) == .admitted)
        #expect(limiter.entryCount == 2)
        // The bucket is one token short until 100 ms: the entry stays (its rate still counts).
        limiter.release(a, nowMilliseconds: 50)
        #expect(limiter.entryCount == 2)
        limiter.release(b, nowMilliseconds: 100)
        #expect(limiter.entryCount == 1)
        limiter.sweep(nowMilliseconds: 100)
        #expect(limiter.entryCount == 0)
        // Without a rate, the last close frees the entry at once.
        let countOnly = self.limiter(max: 3)
        #expect(countOnly.acquire(a, nowMilliseconds: 0) == .admitted)
        countOnly.release(a, nowMilliseconds: 0)
        #expect(countOnly.entryCount == 0)
        // A release for an address never counted changes nothing.
        countOnly.release(b, nowMilliseconds: 0)
        #expect(countOnly.entryCount == 0)
    }

    @Test func ratesNewConnectionsWithABurst() {
        let limiter = limiter(max: 0, rate: 2, burst: 3)
        for _ in 0..<3 { #expect(limiter.acquire(a, nowMilliseconds: 1000) == .admitted) }
        #expect(limiter.acquire(a, nowMilliseconds: 1000) == .tooFast(retryAfterSeconds: 1))
        #expect(limiter.acquire(b, nowMilliseconds: 1000) == .admitted)
        #expect(limiter.acquire(a, nowMilliseconds: 1500) == .admitted)
        #expect(limiter.acquire(a, nowMilliseconds: 1500) == .tooFast(retryAfterSeconds: 1))
    }

    /// Uploads per address: a rate a minute, no count of open ones (each upload
    /// is acquired and released at once); the entry lives while the bucket refills.
    @Test func aRateAMinuteWithoutACount() {
        let limiter = AddressLimiter(
            limits: .init(maxConnections: 0, ratePerSecond: 0, burst: 2, tableCapacity: 1 << 16, ratePerMinute: 6))
        #expect(limiter.limits.isEnabled)
        for _ in 0..<2 {
            #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)
            limiter.release(a, nowMilliseconds: 0)
        }
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .tooFast(retryAfterSeconds: 10))
        #expect(limiter.acquire(a, nowMilliseconds: 9999) == .tooFast(retryAfterSeconds: 1))
        #expect(limiter.acquire(a, nowMilliseconds: 10_000) == .admitted)
        limiter.release(a, nowMilliseconds: 10_000)
        #expect(limiter.entryCount == 1)
        limiter.sweep(nowMilliseconds: 30_000)
        #expect(limiter.entryCount == 0)
    }

    @Test func aRefusalForCountTakesNoToken() {
        let limiter = limiter(max: 1, rate: 1, burst: 2)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)
        for _ in 0..<5 { #expect(limiter.acquire(a, nowMilliseconds: 0) == .tooManyConnections) }
        limiter.release(a, nowMilliseconds: 0)
        #expect(limiter.acquire(a, nowMilliseconds: 0) == .admitted)  // the second token was still there
    }

    @Test func theTableIsBoundedAndAdmitsUntrackedWhenFull() {
        // 64 shards of one entry each.
        let limiter = limiter(max: 5, capacity: AddressLimiter.shardCount)
        var admitted = 0
        var untracked = 0
        for i in 0..<1000 {
            switch limiter.acquire(IPAddress(ipv4: 0x0A00_0000 + UInt32(i)), nowMilliseconds: 0) {
            case .admitted: admitted += 1
            case .untracked: untracked += 1
            default: Issue.record("unexpected refusal")
            }
        }
        #expect(limiter.entryCount == admitted)
        #expect(admitted <= AddressLimiter.shardCount)
        #expect(untracked == 1000 - admitted)
    }

    @Test func aFullShardIsSweptOfIdleEntries() {
        let limiter = limiter(max: 5, rate: 1000, burst: 1, capacity: AddressLimiter.shardCount)
        // Fill every shard with an entry whose connection closed (bucket refilling).
        var filled: [IPAddress] = []
        var i: UInt32 = 0
        while limiter.entryCount < AddressLimiter.shardCount && i < 100_000 {
            let address = IPAddress(ipv4: 0x0A00_0000 + i)
            if limiter.acquire(address, nowMilliseconds: 0) == .admitted {
                limiter.release(address, nowMilliseconds: 0)
                filled.append(address)
            }
            i += 1
        }
        #expect(limiter.entryCount == AddressLimiter.shardCount)
        // A second later every bucket is full again: a new address finds room.
        #expect(limiter.acquire(IPAddress(ipv4: 0xC633_6401), nowMilliseconds: 2000) == .admitted)
    }

    @Test func ipv6AddressesShareTheirSlash64() {
        let limiter = limiter(max: 2)
        #expect(limiter.acquire(IPAddress(parsing: "2001:db8::1")!, nowMilliseconds: 0) == .admitted)
        #expect(limiter.acquire(IPAddress(parsing: "2001:db8::2")!, nowMilliseconds: 0) == .admitted)
        #expect(limiter.acquire(IPAddress(parsing: "2001:db8::3")!, nowMilliseconds: 0) == .tooManyConnections)
        #expect(limiter.acquire(IPAddress(parsing: "2001:db8:0:1::1")!, nowMilliseconds: 0) == .admitted)
    }

    @Test func disabledLimitsTrackNothing() {
        let limiter = limiter(max: 0, rate: 0)
        for _ in 0..<1000 { #expect(limiter.acquire(a, nowMilliseconds: 0) == .untracked) }
        #expect(limiter.entryCount == 0)
    }
}
