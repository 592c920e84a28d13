/// The human-readable wording of a report, shared by the text and HTML writers
/// so a terminal and a browser never disagree about a label or a number.
struct ReportRow {
    var label: String
    var value: String
    /// Counts toward `Correctness.failures` and is non-zero.
    var isFailure = false
}

extension RunReport {
    var displayVerdict: String { passed ? "PASS" : "FAIL" }

    var displayDuration: String { ReportNumberFormat.fixed(durationSeconds, decimals: 1) + " s" }

    /// "started 2024-05-01T10:00:00+02:00, 60.0 s of traffic", leaving out what is unknown.
    var displayTiming: String {
        let traffic = displayDuration + " of traffic"
        return startedAt.isEmpty ? traffic : "started \(startedAt), \(traffic)"
    }

    /// `name=value` pairs in display order.
    var displayParameters: [String] { parameters.map { "\($0.name)=\($0.value)" } }
}

extension Figure {
    var displayValue: String { ReportNumberFormat.figure(value) }
}

extension LatencySummary {
    /// Column headings of the latency table; the percentiles are in milliseconds.
    static let displayHeadings = ["latency", "count", "p50", "p90", "p99", "p99.9", "max"]

    /// One row under `displayHeadings`.
    var displayCells: [String] {
        [label, ReportNumberFormat.grouped(count)]
            + [p50, p90, p99, p999, max].map(ReportNumberFormat.milliseconds)
    }
}

extension NodeShare {
    static let displayHeadings = ["node", "connections"]

    var displayCells: [String] { [url, ReportNumberFormat.grouped(connections)] }
}

extension TargetCheck {
    var displayVerdict: String {
        switch met {
        case true?: "met"
        case false?: "MISSED"
        case nil: "report only"
        }
    }
}

extension Correctness {
    var displayRows: [ReportRow] {
        let failures: [(String, Int)] = [
            ("gaps", gaps), ("duplicates", duplicates), ("reorders", reorders), ("lost acks", lostAcks),
            ("unanswered", unanswered), ("unexpected closes", unexpectedCloses),
        ]
        var rows = failures.map {
            ReportRow(label: $0.0, value: ReportNumberFormat.grouped($0.1), isFailure: $0.1 != 0)
        }
        if routingChecked {
            rows.append(
                ReportRow(
                    label: "routing violations", value: ReportNumberFormat.grouped(routingViolations),
                    isFailure: routingViolations != 0))
        }
        let verified = databaseChecked ? ReportNumberFormat.grouped(verifiedInDatabase) : "not checked"
        rows.append(ReportRow(label: "verified in database", value: verified))
        return rows
    }

    /// Error frames sorted by code, so every writer lists them alike and runs compare line by line.
    var errorsByCode: [(code: String, count: Int)] {
        errors.sorted { $0.key < $1.key }.map { (code: $0.key, count: $0.value) }
    }

    var displayErrors: [ReportRow] {
        errorsByCode.map { ReportRow(label: $0.code, value: ReportNumberFormat.grouped($0.count)) }
    }

    /// "no failures", "1 failure", "3 failures".
    var displayFailureCount: String {
        failures == 0 ? "no failures" : "\(ReportNumberFormat.grouped(failures)) failure\(failures == 1 ? "" : "s")"
    }
}
