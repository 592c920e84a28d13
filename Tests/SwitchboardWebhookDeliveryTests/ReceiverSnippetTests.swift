import Foundation
import Testing

/// The Python and JavaScript verifiers of docs/webhooks.md ("Verifying on the
/// receiver"), taken from the page as written and run on a delivery the
/// dispatcher sent: the code a reader copies is code that works. scripts/test
/// installs node; without python3 or node on PATH the suite says so and skips.
@Suite(
    .enabled(
        if: ExternalProgram.which("python3") != nil && ExternalProgram.which("node") != nil,
        "needs python3 and node on PATH (scripts/test installs nodejs)"))
struct ReceiverSnippetTests {
    /// The fenced blocks of `language` in the page's "Verifying on the receiver" section.
    static func snippets(_ language: String) throws -> [String] {
        let page = try String(
            contentsOf: ExternalProgram.packageRoot.appendingPathComponent("docs/webhooks.md"), encoding: .utf8)
        let section = try #require(page.firstRange(of: "\n## Verifying on the receiver\n"))
        let rest = page[section.upperBound...]
        let body = rest[..<(rest.firstRange(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        var blocks: [String] = []
        var current: [Substring]? = nil
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    func check(_ language: String, runner: String, file: String, harness: String) throws {
        let blocks = try Self.snippets(language)
        try #require(blocks.count == 1, "docs/webhooks.md should have one \(language) block in its section")
        let sent = try SentDelivery.capture()
        let (input, expected) = sent.cases()
        let script = try ExternalProgram.temporaryFile(named: file, contents: blocks[0] + "\n\n" + harness)
        defer { script.remove() }
        let result = try ExternalProgram.run(ExternalProgram.which(runner)!, [script.path], input: input)
        #expect(result.status == 0, "\(runner) failed: \(result.errors)")
        #expect(result.output.split(separator: "\n").map(String.init) == expected, "\(result.output)\(result.errors)")
    }

    @Test func thePythonVerifierAcceptsADeliveryAndRefusesATamperedOne() throws {
        try check(
            "python", runner: "python3", file: "verify.py",
            harness: """
                import base64 as _base64, json as _json, sys as _sys
                for _case in _json.load(_sys.stdin):
                    _body = _base64.b64decode(_case["body"])
                    print("verified" if verify_webhook(_case["secret"], _case["headers"], _body) else "rejected")
                """)
    }

    @Test func theJavaScriptVerifierAcceptsADeliveryAndRefusesATamperedOne() throws {
        try check(
            "js", runner: "node", file: "verify.cjs",
            harness: """
                for (const c of JSON.parse(require("node:fs").readFileSync(0, "utf8"))) {
                  const body = Buffer.from(c.body, "base64");
                  console.log(verifyWebhook(c.secret, c.headers, body) ? "verified" : "rejected");
                }
                """)
    }
}
