import SwitchboardJSON

/// One scenario's part of the chat section (`ChatSection`): its command, verdict,
/// parameters, figures, latencies, correctness counts, targets and notes.
enum ChatScenarioSection {
    static let na = ChatSection.na

    static func render(_ scenario: String, report: JSONValue?, run input: ChatSection.Run) -> [String] {
        let exitCode = input.run["exit.\(scenario)"].flatMap { $0 == .null ? nil : $0 }
        let options = input.run["args.\(scenario)"] ?? .string("")
        let wall = input.run["seconds.\(scenario)"]
        let rss = input.run["rss.\(scenario)"]
        var lines = ["### \(scenario)", ""]
        let command = "`loadtest \(scenario)\(PythonFormat.truthy(options) ? " " + PythonFormat.str(options) : "")`"
        guard let report else {
            if let exitCode {
                lines.append("\(command): no report (loadtest exit status \(PythonFormat.str(exitCode))).")
            } else {
                lines.append("\(command): not run (the run was aborted before it).")
            }
            return lines + [""]
        }
        let ok = passed(report, exitCode)
        var timing = ""
        if let duration = report["duration_s"], PythonFormat.isNumber(duration),
            let seconds = PythonFormat.float(duration), seconds > 0
        {
            timing = PythonFormat.fixed(seconds, 1) + " s of traffic"
        }
        if PythonFormat.truthy(wall) { timing += (timing.isEmpty ? "" : ", ") + "\(PythonFormat.str(wall!)) s in all" }
        if PythonFormat.truthy(rss) {
            timing += (timing.isEmpty ? "" : ", ") + "gateway RSS \(PythonFormat.str(rss!)) afterwards"
        }
        let status =
            isZeroOrMissing(exitCode, emptyCounts: false)
            ? "" : " (loadtest exit status \(PythonFormat.str(exitCode!)))"
        lines.append("\(command) (\(timing)). Correctness: **\(ok ? "pass" : "FAIL")**\(status).")
        if case .object(let parameters)? = report["parameters"], !parameters.isEmpty {
            // The URL names this run's throwaway port: noise in a document.
            let shown = parameters.members.filter { $0.0 != "url" }.map { "\($0.0) \(PythonFormat.str($0.1))" }
            if !shown.isEmpty { lines.append("Parameters: " + shown.joined(separator: ", ") + ".") }
        }
        lines.append("")
        if case .object(let figures)? = report["figures"], !figures.isEmpty {
            lines += ["| figure | value |", "| --- | ---: |"]
            for (key, entry) in figures.members {
                guard case .object = entry else { continue }
                let unit = entry["unit"].map { PythonFormat.str($0) } ?? ""
                lines.append("| \(PythonFormat.str(entry["label"], or: key)) | \(number(entry["value"], unit: unit)) |")
            }
            lines.append("")
        }
        if case .object(let latencies)? = report["latencies"], !latencies.isEmpty {
            lines += [
                "| latency | count | p50 | p90 | p99 | p99.9 | max |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            ]
            for (key, entry) in latencies.members {
                guard case .object = entry else { continue }
                lines.append(
                    "| \(PythonFormat.str(entry["label"], or: key)) | \(number(entry["count"])) | \(ms(entry["p50_ms"]))"
                        + " | \(ms(entry["p90_ms"])) | \(ms(entry["p99_ms"])) | \(ms(entry["p999_ms"]))"
                        + " | \(ms(entry["max_ms"])) |")
            }
            lines.append("")
        }
        lines.append("Correctness: " + correctness(report))
        let checks = list(report["targets"]).filter { $0.objectValue != nil }
        if !checks.isEmpty {
            let texts = checks.map { target in
                "\(PythonFormat.str(target["label"], or: "?")) \(PythonFormat.str(target["target"], or: "?")): "
                    + "\(PythonFormat.str(target["measured"], or: na)) (\(PythonFormat.truthy(target["met"]) ? "met" : "MISSED"))"
            }
            lines.append("Harness targets: " + texts.joined(separator: "; ") + ".")
        }
        let notes = list(report["notes"]).map { PythonFormat.str($0) }
        if !notes.isEmpty { lines += ["", "Notes:", ""] + notes.map { "- \($0)" } }
        return lines + [""]
    }

    /// `value or []` of a JSON list.
    static func list(_ value: JSONValue?) -> [JSONValue] { value?.arrayValue ?? [] }

    /// Whether an exit status counts as success: missing, `"0"` or 0 (and `""` when `emptyCounts`).
    static func isZeroOrMissing(_ exitCode: JSONValue?, emptyCounts: Bool) -> Bool {
        switch exitCode {
        case nil, .null?, .string("0")?: return true
        case .string("")?: return emptyCounts
        case .number(let number)?: return Double(number.raw) == 0
        case .bool(let flag)?: return !flag
        default: return false
        }
    }

    static func passed(_ report: JSONValue, _ exitCode: JSONValue?) -> Bool {
        isZeroOrMissing(exitCode, emptyCounts: true) && PythonFormat.truthy(report["passed"])
    }

    static func correctness(_ report: JSONValue) -> String {
        let counts = report["correctness"]?.objectValue ?? JSONObject()
        func n(_ key: String) -> String { PythonFormat.isNumber(counts[key]) ? number(counts[key]) : na }
        var text =
            "\(n("gaps")) gaps, \(n("duplicates")) duplicates, \(n("reorders")) reorders, \(n("lost_acks")) lost acks,"
            + " \(n("unanswered")) unanswered sends, \(n("unexpected_closes")) unexpected closes"
        if PythonFormat.truthy(counts["database_checked"]) {
            text += "; \(n("verified_in_database")) acked messages verified in the database"
        } else {
            text += "; the database was not checked"
        }
        if let errors = counts["errors"]?.objectValue, !errors.isEmpty {
            let sorted = errors.members.sorted {
                Array($0.0.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.0.unicodeScalars.map(\.value))
            }
            text +=
                ". Error replies (reported, not failures): "
                + sorted.map { "`\($0.0)` \(number($0.1))" }.joined(separator: ", ")
        }
        return text + "."
    }

    /// 1234567 as "1,234,567"; small values keep one or two decimals; `unit` appended.
    static func number(_ value: JSONValue?, unit: String = "") -> String {
        guard let value, value != .null else { return na }
        guard let v = PythonFormat.float(value) else {
            return (PythonFormat.str(value) + " " + unit).trimmingPythonSpace()
        }
        var text: String
        if v.magnitude >= 100 || v == v.rounded(.towardZero) {
            text = PythonFormat.fixed(v, 0, grouping: true)
        } else if v.magnitude >= 10 {
            text = PythonFormat.fixed(v, 1, grouping: true)
        } else {
            text = PythonFormat.fixed(v, 2, grouping: true)
        }
        if ["B", "bytes", "bytes/connection", "B/connection"].contains(unit) {
            text += " B (" + PythonFormat.fixed(v / 1024, 2) + " KiB)"
        } else if !unit.isEmpty {
            text += unit.hasPrefix("/") ? unit : " " + unit
        }
        return text
    }

    static func ms(_ value: JSONValue?) -> String {
        guard let value, value != .null, let v = PythonFormat.float(value) else { return na }
        return PythonFormat.fixed(v, 2) + " ms"
    }
}
