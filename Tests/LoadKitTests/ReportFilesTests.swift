import Foundation
import LoadKit
import Testing

@Suite("ReportFiles")
struct ReportFilesTests {
    @Test("--out is created before the run; a path that cannot be a directory is refused")
    func preparesOrRefuses() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-report-files-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }

        let nested = root + "/runs/today"
        try ReportFiles.prepare(nested)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: nested, isDirectory: &isDirectory) && isDirectory.boolValue)
        try ReportFiles.prepare(nested)  // again: an existing directory is fine

        let file = root + "/plain-file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        #expect(throws: ReportFiles.WriteError.self) { try ReportFiles.prepare(file + "/reports") }
        #expect(throws: ReportFiles.WriteError.self) { try ReportFiles.prepare(file) }
    }
}
