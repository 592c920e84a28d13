import Foundation
import SwitchboardTLS

/// A throwaway self-signed certificate (EC P-256, CN and SAN localhost) plus an unrelated key, made with
/// the `openssl` command-line tool in a fresh temporary folder that is removed when this is released.
final class TestCertificates {
    let directory: URL
    var certificatePath: String { directory.appendingPathComponent("cert.pem").path }
    var keyPath: String { directory.appendingPathComponent("key.pem").path }
    /// A valid key that does not belong to the certificate.
    var otherKeyPath: String { directory.appendingPathComponent("other-key.pem").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyPath, "-out", certificatePath, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost",
        ])
        try Self.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", otherKeyPath])
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func configuration(alpnProtocols: [String] = ["http/1.1"]) -> TLSConfiguration {
        TLSConfiguration(certificatePath: certificatePath, privateKeyPath: keyPath, alpnProtocols: alpnProtocols)
    }

    func makeContext(alpnProtocols: [String] = ["http/1.1"]) throws -> TLSContext {
        try TLSContext(configuration: configuration(alpnProtocols: alpnProtocols))
    }

    struct CommandFailed: Error, CustomStringConvertible {
        let description: String
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: output, as: UTF8.self)
            throw CommandFailed(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }
}
