/// The routing scenario's report: how long a visitor waited for an
/// operator, what the run did, and every promise it found broken.
struct RoutingReport {
    let run: RoutingRun
    let options: LoadOptions
    let startedAt: String

    func build(correctness base: Correctness, drained: Bool, wallSeconds: Double) -> RunReport {
        let invariants = run.invariants
        var correctness = base
        var visitorGaps = 0
        var duplicates = 0
        var reorders = 0
        for visitor in run.visitors {
            var tracker = visitor.tracker
            tracker.expectThrough(visitor.state.maxAckedSeq)
            visitorGaps += tracker.gaps
            duplicates += tracker.duplicates
            reorders += tracker.reorders
        }
        correctness.gaps = visitorGaps
        correctness.duplicates = duplicates
        correctness.reorders = reorders
        correctness.unanswered = run.visitors.filter { $0.sentAt > 0 && !$0.acked }.count
        correctness.unexpectedCloses = run.failures + run.protocolViolations
        correctness.routingChecked = true
        correctness.routingViolations = invariants.violationCount

        var delays = LatencyRecorder()
        for delay in invariants.assignmentDelays { delays.record(nanoseconds: delay) }
        let assignment = delays.summary(key: "time_to_assignment", label: "first message to assignment")
        var report = RunReport(
            scenario: "routing", parameters: options.displayed, startedAt: startedAt, durationSeconds: wallSeconds,
            correctness: correctness)
        report.latencies = [assignment, run.ackLatency.summary(key: "send_to_ack", label: "first message to ack")]
        report.figures = [
            Figure(key: "operators", label: "operators", value: Double(run.operators.count), unit: ""),
            Figure(key: "capacity", label: "capacity per operator", value: Double(run.capacitySeen ?? 0), unit: ""),
            Figure(key: "visitors", label: "visitors (sessions)", value: Double(run.visitors.count), unit: ""),
            Figure(key: "acked", label: "first messages acked", value: Double(run.ackedVisitors), unit: ""),
            Figure(key: "assignments", label: "sessions assigned", value: Double(invariants.assignments), unit: ""),
            Figure(key: "closes", label: "sessions closed", value: Double(invariants.closes), unit: ""),
            Figure(
                key: "longest_queue", label: "most sessions waiting at once", value: Double(run.longestQueue), unit: ""),
            Figure(key: "away_switches", label: "away/online switches", value: Double(run.awaySwitches), unit: ""),
            Figure(
                key: "overtakes", label: "sessions seen assigned before an older one",
                value: Double(invariants.overtakes.count + invariants.overtakesDropped), unit: ""),
        ]
        if let seconds = run.backlogSeconds, seconds > 0 {
            report.figures += [
                Figure(
                    key: "backlog_seconds", label: "queue of every visitor given out in", value: seconds, unit: "s"),
                Figure(
                    key: "backlog_assignments_per_second", label: "assignments/s from the queue",
                    value: Double(run.visitors.count) / seconds, unit: "/s"),
            ]
        }
        report.targets = [
            TargetCheck(
                key: "time_to_assignment_p99_ms", label: "first message to assignment, p99",
                target: "none (report only)",
                measured:
                    "\(ReportNumberFormat.figure(assignment.p99)) ms (p50 \(ReportNumberFormat.figure(assignment.p50)) ms)",
                value: assignment.p99, unit: "ms", met: nil)
        ]
        var notes = run.notes.sorted()
        notes += invariants.violations.prefix(20).map { "routing violation: \($0)" }
        if invariants.violationCount > 20 { notes.append("... and \(invariants.violationCount - 20) more violations") }
        if invariants.unjudgedOvertakes > 0 {
            notes.append(
                "\(invariants.unjudgedOvertakes) overtakes not judged: the order of the passes is read from the "
                    + "database (--database-url)")
        }
        if !drained {
            notes.append(
                "the drain (\(options.drainSeconds) s) ended with \(run.visitors.count - run.finishedVisitors) "
                    + "sessions not closed")
        }
        if !correctness.databaseChecked {
            notes.append("acked messages were not checked against the database (no --database-url)")
        }
        report.notes = notes
        return report
    }
}
