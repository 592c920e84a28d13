import Foundation
import Testing
import WebScriptMinifier

struct ScriptMinifierTests {
    @Test(arguments: [
        // Comments go, line comments with their line break where nothing needs it.
        ("a = 1; // note\nb = 2; /* x */ c = 3;\n", "a=1;b=2;c=3;"),
        ("/** JSDoc */\nexport function f(a, b) {\n  return a + b;\n}\n", "export function f(a,b){return a+b;}"),
        // Strings, template literals and regular expressions keep their text, whatever it holds.
        (#"s = "a // b /* c */ ' \" d" + 'it\'s  x';"#, #"s="a // b /* c */ ' \" d"+'it\'s  x';"#),
        (
            "t = `x ${ a + `y ${ b }` } // not a comment\n  kept ${ {a: 1}.a }`;",
            "t=`x ${a+`y ${b}`} // not a comment\n  kept ${{a:1}.a}`;"
        ),
        (#"r = /[/]\/ "x"/g.test(s); d = a / b / c;"#, #"r=/[/]\/ "x"/g.test(s);d=a/b/c;"#),
        ("if (x) return /a b/.test(y);", "if(x)return/a b/.test(y);"),
        ("const m = s.replace(/\\s+$/, '') ;", "const m=s.replace(/\\s+$/,'');"),
        ("f(`${/}/.test(a)}`)", "f(`${/}/.test(a)}`)"),
        // Spaces that keep two tokens apart stay.
        ("a - -b; a + +b; a + ++b; c - --d;", "a- -b;a+ +b;a+ ++b;c- --d;"),
        ("x = 1 .toString(); y = a / /re/.source; z = i++ / 2;", "x=1 .toString();y=a/ /re/.source;z=i++/2;"),
        (
            "typeof x === 'string' && x instanceof Y; for (const k of ks) {}",
            "typeof x==='string'&&x instanceof Y;for(const k of ks){}"
        ),
        ("if (a < !--b || c-- > d) {}", "if(a< !--b||c-- >d){}"),
        ("const café = 'café'; é = 1", "const café='café';é=1"),
        // Line breaks that automatic semicolon insertion may need stay; the others go.
        ("let a = b\n(c)\nx = y\n++z\nreturn\nw", "let a=b\n(c)\nx=y\n++z\nreturn\nw"),
        ("a = b\n.5.toFixed()", "a=b\n.5.toFixed()"),
        ("f(a,\n  b)\nclient\n  .connect()\n  .then(x => y)\n", "f(a,b)\nclient.connect().then(x=>y)"),
        ("const o = {\n  a: 1,\n  b: [\n    2,\n  ],\n}\nnext()", "const o={a:1,b:[2,],}\nnext()"),
        ("x = a /* one\ntwo */ y = b", "x=a\ny=b"),
        ("x = a\n  ? b\n  : c", "x=a?b:c"),
    ])
    func minifies(source: String, expected: String) throws {
        let minified = try ScriptMinifier.minify(source)
        #expect(minified == expected)
        #expect(try ScriptMinifier.minify(minified) == minified, "minifying again changes nothing")
        #expect(try ScriptMinifier.tokens(minified) == ScriptMinifier.tokens(source), "the same tokens")
    }

    @Test(arguments: [
        ("a = 1;\nb = 'open\n';", 2, "unterminated string"),
        ("a = `open ${ b }", 1, "unterminated template literal"),
        ("a = `open ${ b ", 1, "unterminated template literal"),
        ("/* open", 1, "unterminated comment"),
        ("\n\nx = /open\n/", 3, "unterminated regular expression"),
    ])
    func refusesWhatDoesNotScan(source: String, line: Int, problem: String) {
        #expect(throws: ScriptMinifier.Failure(line: line, problem: problem)) { try ScriptMinifier.minify(source) }
    }

    /// Every script of Web/: smaller, stable, the same tokens, and (where Node is installed) still a
    /// program that parses. The browser tests run the minified scripts themselves.
    @Test func everyClientScriptKeepsItsTokens() throws {
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Web")
        let scripts = try #require(FileManager.default.enumerator(at: web, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "js" }
        #expect(scripts.count >= 5)
        let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
        for script in scripts {
            let source = try String(contentsOf: script, encoding: .utf8)
            let minified = try ScriptMinifier.minify(source)
            #expect(minified.utf8.count < source.utf8.count * 85 / 100, "\(script.lastPathComponent)")
            #expect(try ScriptMinifier.minify(minified) == minified, "\(script.lastPathComponent)")
            #expect(try ScriptMinifier.tokens(minified) == ScriptMinifier.tokens(source), "\(script.lastPathComponent)")
            // A module imports or exports at the start of a line; the widget is a classic script.
            let isModule = source.split(separator: "\n").contains { $0.hasPrefix("import ") || $0.hasPrefix("export ") }
            if let node { try checkSyntax(node: node, minified, module: isModule, named: script.lastPathComponent) }
        }
    }

    /// `node --check` on the minified text, as a module or a classic script, whichever the source is.
    func checkSyntax(node: String, _ script: String, module isModule: Bool, named name: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "minified-\(UUID().uuidString)-\(name)" + (isModule ? ".mjs" : ".cjs"))
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: node)
        process.arguments = ["--check", file.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(name): \(message)")
    }
}
