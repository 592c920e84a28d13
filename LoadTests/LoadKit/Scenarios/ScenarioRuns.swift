import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The scenarios, each as phases of one shard: set up, traffic, drain.
/// Sizes arrive already divided between shards.
enum ScenarioRuns {
    struct Context {
        let options: LoadOptions
        let shard: Shard
        let sessions: Int
        let connections: Int
        let rate: Double
        let firstIndex: Int
        /// The run-wide number of this shard's first session (`NodeSpread`).
        let firstSession: Int
        let workspace: String
        let probe: GatewayProbe?

        /// The sessions this shard makes: storm derives them from its connections.
        var sessionCount: Int {
            options.scenario == "storm" ? max(1, connections / (1 + options.operators)) : sessions
        }
    }

    static func run(_ context: Context) -> ShardOutcome {
        switch context.options.scenario {
        case "conversations": return conversation(context, operators: context.options.operators, everyoneSends: true)
        case "fanout": return conversation(context, operators: context.options.subscribers, everyoneSends: false)
        case "idle": return idle(context)
        case "storm": return storm(context)
        default: return ramp(context)
        }
    }

    private static func populate(_ context: Context, sessions: Int, operators: Int) -> Population {
        Population(
            shard: context.shard, sessions: sessions, operatorsPerSession: operators, firstIndex: context.firstIndex,
            firstSession: context.firstSession, secret: context.options.jwtSecret, workspace: context.workspace)
    }

    /// Visitors first (each creates its session), then the operators join.
    private static func setUp(_ context: Context, _ population: Population, concurrency: Int) -> ShardOutcome {
        var outcome = ShardOutcome(shard: context.shard)
        let timeout = context.options.setupTimeoutSeconds
        outcome.connectSeconds = context.shard.connect(
            population.visitors, concurrency: concurrency, timeoutSeconds: timeout)
        if context.shard.setupErrors.isEmpty {
            outcome.connectSeconds += context.shard.connect(
                population.operators, concurrency: concurrency, timeoutSeconds: timeout)
        }
        outcome.connections = population.visitors.count + population.operators.count
        outcome.connectionsPerNode = population.perNode
        return outcome
    }

    /// conversations (everyone sends) and fanout (only visitors send).
    private static func conversation(_ context: Context, operators: Int, everyoneSends: Bool) -> ShardOutcome {
        let shard = context.shard
        let population = populate(context, sessions: context.sessions, operators: operators)
        var outcome = setUp(context, population, concurrency: context.options.connectConcurrency)
        guard shard.setupErrors.isEmpty else { return outcome }
        let senders = everyoneSends ? interleaved(population) : population.visitors
        measureTraffic(context, &outcome, senders: senders, rate: context.rate, seconds: context.options.seconds)
        shard.closeAll()
        return outcome
    }

    /// Sends spread over sessions first, so consecutive messages hit different
    /// sessions and every participant sends once per cycle.
    private static func interleaved(_ population: Population) -> [Participant] {
        let sessions = population.visitors.count
        let perSession = population.operators.count / max(1, sessions)
        var order = population.visitors
        for round in 0..<perSession {
            for session in 0..<sessions { order.append(population.operators[session * perSession + round]) }
        }
        return order
    }

    private static func measureTraffic(
        _ context: Context, _ outcome: inout ShardOutcome, senders: [Participant], rate: Double, seconds: Double,
        during: ScenarioEvent? = nil
    ) {
        let shard = context.shard
        let start = MonotonicClock.nanoseconds() + 50_000_000
        let warmup = min(context.options.warmupSeconds, seconds / 2)
        shard.recordFrom = start + UInt64(warmup * 1e9)
        if context.options.alternateSeconds > 0 {
            shard.alternation = .onWallClock(
                windowSeconds: context.options.alternateSeconds, settlingSeconds: context.options.alternateSettleSeconds
            )
        }
        // The harness's own share too (every shard's thread), read by the
        // shard that reads the gateway: on a machine the two share, what the
        // load generator burns is CPU the gateway and its database do not get.
        let harness = context.probe.map { _ in GatewayProbe(pid: getpid()) }
        let cpuBefore = context.probe?.cpuSeconds()
        let harnessBefore = harness?.cpuSeconds()
        shard.traffic(senders: senders, rate: rate, start: start, seconds: seconds, during: during)
        outcome.drained = shard.drain(timeoutSeconds: context.options.drainSeconds, during: during)
        if let before = cpuBefore, let after = context.probe?.cpuSeconds() {
            outcome.gatewayCPUSeconds = after - before
            outcome.cpuWallSeconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
        }
        if let before = harnessBefore, let after = harness?.cpuSeconds() { outcome.harnessCPUSeconds = after - before }
        outcome.measureFrom = shard.recordFrom
    }

    private static func idle(_ context: Context) -> ShardOutcome {
        let shard = context.shard
        let perSession = max(1, context.connections / context.sessions)
        let population = populate(context, sessions: context.sessionCount, operators: perSession - 1)
        let before = context.probe?.residentKiB()
        var outcome = setUp(context, population, concurrency: context.options.connectConcurrency)
        // Let the gateway finish what the set-up started (replies, buffers) before reading its memory.
        shard.run(until: MonotonicClock.nanoseconds() + 2_000_000_000) { _ in false }
        outcome.rssBeforeKiB = before
        outcome.rssAfterKiB = context.probe?.residentKiB()
        shard.closeAll()
        return outcome
    }

    /// Everything connects at once; midway every operator loses its
    /// connection and all of them come back at once with `since_seq`.
    private static func storm(_ context: Context) -> ShardOutcome {
        let shard = context.shard
        let population = populate(context, sessions: context.sessionCount, operators: context.options.operators)
        var outcome = setUp(context, population, concurrency: 0)
        guard shard.setupErrors.isEmpty else { return outcome }
        let seconds = context.options.seconds
        var stormAt: UInt64 = 0
        var stormStarted: UInt64 = 0
        var readyBefore = 0
        var back = false
        var reconnectSeconds = 0.0
        measureTraffic(context, &outcome, senders: population.visitors, rate: context.rate, seconds: seconds) { now in
            if stormAt == 0 { stormAt = now + UInt64(seconds / 2 * 1e9) }
            if stormStarted == 0 && now >= stormAt {
                stormStarted = now
                shard.measuringReconnects = true
                for participant in population.operators { participant.dropConnection() }
                readyBefore = shard.readyCount
                for participant in population.operators { participant.connect(loop: shard.loop) }
            } else if stormStarted != 0 && !back && shard.readyCount - readyBefore >= population.operators.count {
                back = true
                reconnectSeconds = Double(now - stormStarted) / 1e9
            }
            return back
        }
        outcome.reconnectSeconds = reconnectSeconds
        outcome.reconnections = population.operators.count
        if !back { shard.failedDuringTraffic("not every operator was back after the reconnect storm") }
        shard.closeAll()
        return outcome
    }

    /// Steps the rate up; each step is judged on the messages sent in it.
    private static func ramp(_ context: Context) -> ShardOutcome {
        let shard = context.shard
        let options = context.options
        let population = populate(context, sessions: context.sessions, operators: options.operators)
        var outcome = setUp(context, population, concurrency: options.connectConcurrency)
        guard shard.setupErrors.isEmpty else { return outcome }
        let senders = interleaved(population)
        // A warm-up at the first rate, unjudged: fresh sessions and a cold
        // gateway should not decide the first step.
        if options.warmupSeconds > 0 {
            shard.recordFrom = .max
            shard.traffic(
                senders: senders, rate: options.rampStart, start: MonotonicClock.nanoseconds() + 20_000_000,
                seconds: options.warmupSeconds)
            shard.drain(timeoutSeconds: 2)
        }
        var rate = options.rampStart
        var total = LatencyRecorder()
        while rate <= options.rampMax {
            let sentBefore = shard.sent
            let ackedBefore = shard.acked
            shard.deliveryLatency.reset()
            let start = MonotonicClock.nanoseconds() + 20_000_000
            shard.recordFrom = start
            shard.traffic(senders: senders, rate: rate, start: start, seconds: options.stepSeconds)
            // Stragglers of this step get a short grace, so the next step starts clean.
            shard.drain(timeoutSeconds: 2)
            let sent = shard.sent - sentBefore
            let acked = shard.acked - ackedBefore
            let p99 = shard.deliveryLatency.milliseconds(atPercentile: 99)
            // A step that measured nothing proves nothing.
            let passed =
                sent > 0 && shard.deliveryLatency.count > 0 && p99 <= options.p99BoundMilliseconds
                && Double(acked) >= 0.99 * Double(sent)
            outcome.rampSteps.append(
                RampStep(rate: rate, sent: sent, acked: acked, p99Milliseconds: p99, passed: passed))
            total.merge(shard.deliveryLatency)
            if !passed { break }
            rate += options.rampStep
        }
        shard.deliveryLatency = total
        outcome.drained = shard.drain(timeoutSeconds: options.drainSeconds)
        shard.closeAll()
        return outcome
    }
}
