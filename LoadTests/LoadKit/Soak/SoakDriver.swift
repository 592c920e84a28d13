import SwitchboardSystem

/// `loadtest soak`: mixed traffic for a long time, and a verdict on whether
/// anything grows that should not (docs/operations.md, "Soak runs").
public enum SoakDriver {
    public static func main(_ arguments: [String]) -> Int32 {
        DriverMain.run(
            arguments, usage: SoakOptions.usage, tag: "soak", parse: SoakOptions.init(arguments:), run: run)
    }

    static func run(_ options: SoakOptions, log: DriveLog) throws(DriveError) -> Bool {
        try DatabaseCommands.migrate(binDirectory: options.binDirectory, databaseURL: options.databaseURL)
        let secret = HarnessRuns.newSecret()
        var config = GatewayConfig(port: try LocalPorts.free(), jwtSecret: secret)
        config.threads = 2
        let gateway = try GatewayProcess(
            binDirectory: options.binDirectory, databaseURL: options.databaseURL, config: config,
            configPath: TextFile.join(options.workDirectory, "gateway.toml"),
            logPath: TextFile.join(options.outputDirectory, "gateway.log"), core: nil)
        let started = BenchmarksDoc.utcMinute()
        let workers = SoakWorkers(
            options: options, gatewayURL: gateway.url, port: gateway.port, secret: secret,
            workspace: HarnessRuns.newWorkspace(), log: log)
        workers.start()
        let samples = sample(gateway, options: options, workers: workers, log: log)
        workers.stop(waitingUpTo: Double(options.roundSeconds + 120))
        gateway.stop()
        var traffic = workers.traffic.withLock { $0 }
        if samples.gone { traffic.failures.append("the gateway exited during the run") }
        let (trends, problems) = SoakVerdict.judge(samples: samples.taken, traffic: traffic)
        let result = SoakResult(
            options: options, samples: samples.taken, traffic: traffic, trends: trends, problems: problems,
            started: started)
        if options.minutes >= SoakVerdict.recordedMinutes {
            do {
                try SoakBenchmarks.write(result)
            } catch {
                throw DriveError("docs/benchmarks.md: \(error)")
            }
            log("docs/benchmarks.md: section Soak written, charts in docs/images/soak.svg")
        }
        let html = TextFile.join(options.outputDirectory, "soak.html")
        do {
            try TextFile.write(TextFile.join(options.outputDirectory, "soak.json"), SoakReport.json(result))
            try TextFile.write(html, SoakReport.html(result))
        } catch {
            throw DriveError(error.description)
        }
        let measured = SoakVerdict.measured(samples.taken).count
        for trend in trends {
            let fit =
                trend.fitted == measured
                ? ""
                : ", \(trend.fitted) of \(measured) samples: the host stole more than "
                    + "\(PythonFormat.repr(SoakVerdict.stolenCoresLimit)) of a core in the others"
            log(
                "\(trend.label): slope \(PythonFormat.repr(trend.slopePerMinute)) per minute "
                    + "(bound \(PythonFormat.repr(trend.boundPerMinute))\(fit))"
                    + (trend.judged ? "" : "; NOT JUDGED: too few samples the host left alone"))
        }
        log(
            "\(result.passed ? "passed" : "FAILED"): \(traffic.rounds.count) rounds, \(traffic.churnCycles) churn "
                + "cycles, \(traffic.apiCalls) API calls; report \(html)")
        for problem in problems { log("problem: \(problem)") }
        return result.passed
    }

    /// Samples every `sampleSeconds` until the run's minutes are over (or the gateway is gone).
    private static func sample(
        _ gateway: GatewayProcess, options: SoakOptions, workers: SoakWorkers, log: DriveLog
    ) -> (taken: [SoakSample], gone: Bool) {
        var samples: [SoakSample] = []
        var previous: String?
        var stealBefore = (ticks: HostSteal.ticks(), seconds: DriveClock.monotonicSeconds())
        let started = DriveClock.monotonicSeconds()
        let end = started + options.minutes * 60
        let perMinute = max(1, 60 / options.sampleSeconds)
        while DriveClock.monotonicSeconds() < end {
            DriveClock.sleep(seconds: Double(options.sampleSeconds))
            guard gateway.process.isRunning, let rss = gateway.residentKiB, let descriptors = gateway.openDescriptors
            else { return (samples, true) }
            let metrics = (try? gateway.metrics()) ?? ""
            let p99 = previous.flatMap { before in
                SendStages.between(before: before, after: metrics).first { $0.name == "total" }?.p99Milliseconds
            }
            previous = metrics
            let steal = (ticks: HostSteal.ticks(), seconds: DriveClock.monotonicSeconds())
            let stolen = HostSteal.cores(
                between: stealBefore.ticks, and: steal.ticks, seconds: steal.seconds - stealBefore.seconds)
            stealBefore = steal
            let minutes = PythonFormat.round((DriveClock.monotonicSeconds() - started) / 60, 3)
            let sample = SoakSample(
                minutes: minutes, rssKiB: rss, descriptors: descriptors,
                queueDepth: PrometheusText.value("switchboard_writer_queue_depth", in: metrics) ?? 0,
                p99Milliseconds: p99, stolenCores: stolen.map { PythonFormat.round($0, 3) })
            samples.append(sample)
            if samples.count % perMinute == 0 {
                let traffic = workers.traffic.withLock { $0 }
                log(
                    "\(PythonFormat.fixed(minutes, 1)) min: RSS \(PythonFormat.grouped(rss)) KiB, \(descriptors) fds, "
                        + "queue \(PythonFormat.fixed(sample.queueDepth, 0)), p99 "
                        + "\(p99.map(PythonFormat.repr) ?? "None") ms; rounds \(traffic.rounds.count), churn "
                        + "\(traffic.churnCycles), API calls \(traffic.apiCalls)")
            }
        }
        return (samples, false)
    }
}
