/// The table of modules in docs/architecture.md (between `<!-- modules:begin -->` and
/// `<!-- modules:end -->`): every target that is not a test, bottom first, with what
/// Package.swift lets it import; each row's "job" text is kept from the document.
public enum ModuleTable {
    public static let begin = "<!-- modules:begin -->"
    public static let end = "<!-- modules:end -->"

    /// Targets that are not tests, each after everything it depends on; ties in Package.swift order.
    static func bottomFirst(_ targets: [PackageTarget]) throws(ReportError) -> [PackageTarget] {
        let listed = targets.filter { $0.type != "test" }
        let names = Set(listed.map(\.name))
        var done: Set<String> = []
        var order: [PackageTarget] = []
        while order.count < listed.count {
            guard
                let next = listed.first(where: { target in
                    !done.contains(target.name)
                        && target.dependencies.allSatisfy { done.contains($0) || !names.contains($0) }
                })
            else { throw ReportError(description: "Package.swift has a dependency cycle") }
            order.append(next)
            done.insert(next.name)
        }
        return order
    }

    static func short(_ name: String) -> String {
        name.hasPrefix("Switchboard") && name.count > "Switchboard".count ? String(name.dropFirst(11)) : name
    }

    static func mayImport(_ target: PackageTarget) -> String {
        if target.type == "system" || ImportRules.cModules.contains(target.name) { return "the C library" }
        var names = target.dependencies.map(short)
        if !ImportRules.cModules.isDisjoint(with: target.dependencies) || target.isTestOrHarness {
            names.append("libc")
        }
        if target.isTestOrHarness { names.append("Foundation") }
        return names.isEmpty ? "nothing" : names.joined(separator: ", ")
    }

    static func moduleCell(_ target: PackageTarget) -> String {
        let inTests = target.path.hasPrefix("LoadTests/") || target.path.hasPrefix("Tests/")
        return "`\(target.name)`" + (inTests ? " (`\(target.path)`)" : "")
    }

    /// The table's text (between the markers) and the targets without a job text.
    static func render(
        _ targets: [PackageTarget], jobs: [String: String]
    ) throws(ReportError)
        -> (text: String, missing: [String])
    {
        var rows = ["| module | job | may import |", "| --- | --- | --- |"]
        var missing: [String] = []
        for target in try bottomFirst(targets) {
            var job = jobs[target.name] ?? ""
            if job.isEmpty {
                missing.append(target.name)
                job = "(no description yet: write one in docs/architecture.md)"
            }
            rows.append("| \(moduleCell(target)) | \(job) | \(mayImport(target)) |")
        }
        return ("\n" + rows.joined(separator: "\n") + "\n", missing)
    }

    /// The document split around the table (head, table, tail) and each module's job text.
    static func read(
        _ text: String
    ) throws(ReportError) -> (head: String, body: String, tail: String, jobs: [String: String]) {
        guard let first = text.firstRange(of: begin), let last = text[first.upperBound...].firstRange(of: end) else {
            throw ReportError(description: "docs/architecture.md has no \(begin) ... \(end) section")
        }
        let body = String(text[first.upperBound..<last.lowerBound])
        var jobs: [String: String] = [:]
        for line in body.split(separator: "\n") {
            var row = String(line).trimmingPythonSpace()
            while row.hasPrefix("|") { row.removeFirst() }
            while row.hasSuffix("|") { row.removeLast() }
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
                String($0).trimmingPythonSpace()
            }
            guard cells.count == 3, cells[0] != "module", cells[0] != "---" else { continue }
            let names = cells[0].prefix { $0 != "(" }.split(separator: "`", omittingEmptySubsequences: false)
            for index in stride(from: 1, to: names.count - 1, by: 2) where !names[index].isEmpty {
                jobs[String(names[index])] = cells[1]
            }
        }
        return (String(text[..<first.lowerBound]), body, String(text[last.upperBound...]), jobs)
    }
}
