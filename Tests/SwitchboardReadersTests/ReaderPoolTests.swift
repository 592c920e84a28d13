import Foundation
import SwitchboardReaders
import Synchronization
import Testing

@Suite struct ReaderPoolTests {
    @Test func runsJobsOnSeveralThreadsAndReturnsResults() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let pool = ReaderPool(databaseURL: fixture.database.url, threads: 3, queueCapacity: 16)
        pool.start()
        defer { pool.stop() }

        let arrived = Atomic<Int>(0)
        let results = Mutex<[(thread: UInt, title: String?, met: Bool)]>([])
        let done = DispatchSemaphore(value: 0)
        let workspaceID = fixture.workspaceID
        for index in 0..<3 {
            let accepted = pool.submit { queries in
                // Every job waits for the other two: only three threads at once get all of them here.
                arrived.add(1, ordering: .sequentiallyConsistent)
                let deadline = Date().addingTimeInterval(10)
                while arrived.load(ordering: .sequentiallyConsistent) < 3 && Date() < deadline { usleep(1000) }
                let met = arrived.load(ordering: .sequentiallyConsistent) >= 3
                let title = try? queries.createSession(workspaceID: workspaceID, visitorID: "v", title: "t\(index)")
                    .title
                results.withLock { $0.append((UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), title, met)) }
                done.signal()
            }
            #expect(accepted)
        }
        for _ in 0..<3 { #expect(done.wait(timeout: .now() + 30) == .success) }

        let collected = results.withLock { $0 }
        let everyoneMet = collected.allSatisfy { $0.met }
        #expect(everyoneMet)
        #expect(Set(collected.map(\.thread)).count == 3)
        #expect(Set(collected.compactMap(\.title)) == ["t0", "t1", "t2"])
        #expect(pool.queueDepth == 0)
    }

    @Test func threadsAreNamed() throws {
        let pool = ReaderPool(databaseURL: "postgresql://unused@127.0.0.1:1/none", threads: 2, queueCapacity: 4)
        pool.start()
        defer { pool.stop() }
        let name = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        #expect(
            pool.submit { _ in
                let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                name.withLock { $0 = comm?.trimmingCharacters(in: .whitespacesAndNewlines) }
                done.signal()
            })
        #expect(done.wait(timeout: .now() + 10) == .success)
        let got = name.withLock { $0 } ?? ""
        #expect(got.hasPrefix("sb-reader-"))
    }

    @Test func submitRefusesWhenFullAndAfterStop() throws {
        // The jobs never touch the database, so no server is needed.
        let pool = ReaderPool(databaseURL: "postgresql://unused@127.0.0.1:1/none", threads: 1, queueCapacity: 2)
        pool.start()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)

        #expect(
            pool.submit { _ in
                started.signal()
                release.wait()
            })
        #expect(started.wait(timeout: .now() + 10) == .success)
        // The only thread is busy: the queue takes exactly its capacity.
        #expect(pool.submit { _ in ran.add(1, ordering: .relaxed) })
        #expect(pool.submit { _ in ran.add(1, ordering: .relaxed) })
        #expect(pool.queueDepth == 2)
        #expect(!pool.submit { _ in ran.add(1, ordering: .relaxed) })

        release.signal()
        pool.stop()  // finishes the queued jobs before returning
        #expect(ran.load(ordering: .relaxed) == 2)
        #expect(pool.queueDepth == 0)
        #expect(!pool.submit { _ in ran.add(1, ordering: .relaxed) })
        pool.stop()  // a second stop is harmless
    }

    @Test func jobsSubmittedBeforeStartRunAfterIt() throws {
        let pool = ReaderPool(databaseURL: "postgresql://unused@127.0.0.1:1/none", threads: 2, queueCapacity: 8)
        let ran = Atomic<Int>(0)
        for _ in 0..<5 { #expect(pool.submit { _ in ran.add(1, ordering: .relaxed) }) }
        #expect(pool.queueDepth == 5)
        pool.start()
        pool.stop()
        #expect(ran.load(ordering: .relaxed) == 5)
    }
}
