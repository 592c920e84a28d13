import Foundation
import Testing

/// The Standard Webhooks reference library for Python (`standardwebhooks` on
/// PyPI) verifies what the dispatcher sends: a receiver using it, or one of
/// its siblings in other languages, accepts our deliveries. The library comes
/// from $SWITCHBOARD_TEST_PYTHON when it has it (scripts/test's venv does),
/// else from a venv this test makes under .build; only when PyPI cannot be
/// reached is the test cancelled, saying so.
@Suite struct StandardWebhooksLibraryTests {
    static let requirement = "standardwebhooks>=1.1,<2"

    static let script = """
        import base64, json, sys
        from standardwebhooks import Webhook, WebhookVerificationError
        for case in json.load(sys.stdin):
            try:
                Webhook(case["secret"]).verify(base64.b64decode(case["body"]), case["headers"])
                print("verified")
            except WebhookVerificationError:
                print("rejected")
        """

    @Test func theReferenceLibraryVerifiesWhatTheDispatcherSent() throws {
        let python = try Self.pythonWithTheLibrary()
        let sent = try SentDelivery.capture()
        let (input, expected) = sent.cases()
        let file = try ExternalProgram.temporaryFile(named: "reference.py", contents: Self.script)
        defer { file.remove() }
        let result = try ExternalProgram.run(python, [file.path], input: input)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").map(String.init) == expected, "\(result.output)\(result.errors)")
    }

    static func imports(_ python: String) -> Bool {
        (try? ExternalProgram.run(python, ["-c", "import standardwebhooks"]).status) == 0
    }

    static func pythonWithTheLibrary() throws -> String {
        if let python = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_PYTHON"], !python.isEmpty,
            imports(python)
        {
            return python
        }
        let venv = ExternalProgram.packageRoot.appendingPathComponent(".build/standardwebhooks-venv").path
        let python = venv + "/bin/python"
        if imports(python) { return python }
        let system = try #require(ExternalProgram.which("python3"), "python3 is not on PATH")
        let made = try ExternalProgram.run(system, ["-m", "venv", "--clear", venv])
        try #require(made.status == 0, "cannot make a venv at \(venv) (python3-venv?): \(made.errors)")
        let installed = try ExternalProgram.run(
            python,
            [
                "-m", "pip", "install", "-q", "--disable-pip-version-check", "--timeout", "20", "--retries", "1",
                requirement,
            ])
        if installed.status != 0 {
            let reason = installed.errors.split(separator: "\n").last.map(String.init) ?? "no message"
            try Test.cancel("PyPI looks unreachable: pip install \(requirement) failed: \(reason)")
        }
        return python
    }
}
