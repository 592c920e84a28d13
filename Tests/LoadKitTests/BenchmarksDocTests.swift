import LoadKit
import SwitchboardJSON
import Testing

@Suite("BenchmarksDoc")
struct BenchmarksDocTests {
    let document = """
        # Benchmarks

        intro
        <!-- writer:begin -->
        ## Writer
        old
        <!-- writer:end -->

        ## Hand-written
        kept  as it is\u{20}

        """

    @Test("a section is replaced between its markers and nothing else changes")
    func replacesBetweenMarkers() {
        let replaced = BenchmarksDoc.replacingSection("writer", with: "## Writer\nnew\n", in: document)
        #expect(replaced == document.replacing("## Writer\nold\n", with: "## Writer\nnew\n"))
        // Again with the same body: the same text.
        #expect(BenchmarksDoc.replacingSection("writer", with: "## Writer\nnew\n", in: replaced) == replaced)
    }

    @Test("a missing section is appended after one blank line")
    func appendsMissingSection() {
        let appended = BenchmarksDoc.replacingSection("soak", with: "## Soak\n", in: document + "\n\n")
        #expect(appended == document + "\n<!-- soak:begin -->\n## Soak\n<!-- soak:end -->\n")
        #expect(
            BenchmarksDoc.replacingSection("x", with: "## X\n", in: BenchmarksDoc.header)
                == BenchmarksDoc.header + "\n<!-- x:begin -->\n## X\n<!-- x:end -->\n")
    }

    @Test("heading, raw output and JSON lines as the sections use them")
    func sharedPieces() {
        #expect(
            BenchmarksDoc.heading("T", date: "2026-01-20 10:00 UTC", machine: "2 cores (X), 1 GiB, Linux 6")
                == ["## T", "", "Run 2026-01-20 10:00 UTC on 2 cores (X), 1 GiB, Linux 6."])
        #expect(BenchmarksDoc.rawOutput("\n  a\nb  \n\n") == ["", "Raw output:", "", "```", "a", "b", "```"])
        let objects = BenchmarksDoc.jsonLines("progress\n {\"kind\": \"echo\", \"n\": 1.50}\n{\"n\": 2}\n{bad\n[1]\n")
        #expect(objects.count == 1)
        #expect(objects.first.map { PythonFormat.str($0["n"]!) } == "1.5")
        #expect(BenchmarksDoc.machine().contains(" cores ("))
        #expect(BenchmarksDoc.utcMinute().hasSuffix(" UTC"))
    }
}

@Suite("PythonFormat")
struct PythonFormatTests {
    @Test("repr as Python prints a float")
    func repr() {
        let cases: [(Double, String)] = [
            (0, "0.0"), (-0.0, "-0.0"), (5, "5.0"), (12.5, "12.5"), (0.1 + 0.2, "0.30000000000000004"),
            (1e-05, "1e-05"), (0.0001, "0.0001"), (1e16, "1e+16"), (1e15, "1000000000000000.0"),
            (123456789.125, "123456789.125"), (1.5e-07, "1.5e-07"), (2.5e+20, "2.5e+20"), (-3.25, "-3.25"),
        ]
        for (value, text) in cases { #expect(PythonFormat.repr(value) == text) }
    }

    @Test("format specs round the exact binary value, ties to even")
    func fixed() {
        #expect(PythonFormat.fixed(0.125, 2) == "0.12")
        #expect(PythonFormat.fixed(2.675, 2) == "2.67")
        #expect(PythonFormat.fixed(1234567.5, 0, grouping: true) == "1,234,568")
        #expect(PythonFormat.fixed(-1234.5, 1, grouping: true) == "-1,234.5")
        #expect(PythonFormat.fixed(0.5, 0) == "0")
        #expect(PythonFormat.fixed(1.5, 0) == "2")
        #expect(PythonFormat.grouped(-1234567) == "-1,234,567")
        #expect(PythonFormat.repr(PythonFormat.round(0.1235, 3)) == "0.123")
        #expect(PythonFormat.repr(PythonFormat.round(2.0005, 3)) == "2.001")
    }

    @Test("str of what json.loads made")
    func str() throws {
        let value = try JSONParser.parse("[1, 2.50, \"x\", true, null, {\"a\": 1e3}]")
        #expect(PythonFormat.str(value) == "[1, 2.5, 'x', True, None, {'a': 1000.0}]")
        #expect(PythonFormat.str(.string("plain")) == "plain")
    }
}
