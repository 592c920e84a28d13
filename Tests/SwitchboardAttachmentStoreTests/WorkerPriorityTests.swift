import Foundation
import Testing

/// The attachment workers run below the event loops' priority, so bulk
/// uploads yield the core to chat traffic.
@Suite struct WorkerPriorityTests {
    @Test func workersRunAtNiceTen() throws {
        let fixture = try StoreFixture(.postgres, workers: 2)
        defer { fixture.close() }
        // A lookup makes every worker that takes it run; the threads lower their priority as they start.
        _ = try fixture.lookup(newUUID())
        var nices: [Int] = []
        let deadline = Date().addingTimeInterval(5)
        repeat {
            nices = Self.niceOfThreads(named: "sb-attach-")
            if nices.count == 2 && nices.allSatisfy({ $0 == 10 }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        #expect(nices == [10, 10])
    }

    /// The nice value (field 19 of /proc/self/task/TID/stat) of this process's threads whose name starts with `prefix`.
    static func niceOfThreads(named prefix: String) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { tid -> Int? in
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                comm.hasPrefix(prefix),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After ")": state is field 3, so nice (19) is at index 16 here.
            return fields.count > 16 ? Int(fields[16]) : nil
        }
    }
}
