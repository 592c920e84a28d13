import Foundation

/// Runs another program (python3, node) to completion: input on stdin, its
/// output and errors through files (pipes could fill and stall it).
enum ExternalProgram {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The program's path on PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func run(_ executable: String, _ arguments: [String], input: Data = Data()) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("out")
        let errorsURL = folder.appendingPathComponent("err")
        try Data().write(to: outputURL)
        try Data().write(to: errorsURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorsURL)
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: try String(contentsOf: outputURL, encoding: .utf8),
            errors: try String(contentsOf: errorsURL, encoding: .utf8))
    }

    /// A file in a fresh temporary folder, removed by the returned closure.
    static func temporaryFile(named name: String, contents: String) throws -> (path: String, remove: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try contents.write(to: file, atomically: true, encoding: .utf8)
        return (file.path, { try? FileManager.default.removeItem(at: folder) })
    }

    /// The package's root folder (this file is Tests/SwitchboardWebhookDeliveryTests/Support/ExternalProgram.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}
