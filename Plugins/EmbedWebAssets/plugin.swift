import Foundation
import PackagePlugin

/// Compiles the browser clients (Web/) into the target that uses this plugin:
/// one generated Swift file holding every file's text, so the binary serves
/// them from any working directory and when copied elsewhere. Rebuilt
/// whenever a file under Web/ changes.
@main
struct EmbedWebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let web = context.package.directoryURL.appending(path: "Web")
        let output = context.pluginWorkDirectoryURL.appending(path: "WebAssets+Embedded.swift")
        var inputs: [URL] = []
        if let files = FileManager.default.enumerator(at: web, includingPropertiesForKeys: nil) {
            for case let file as URL in files where !file.hasDirectoryPath { inputs.append(file) }
        }
        return [
            .buildCommand(
                displayName: "Embedding the browser clients (\(inputs.count) files)",
                executable: try context.tool(named: "web-asset-embedder").url,
                arguments: [web.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}
