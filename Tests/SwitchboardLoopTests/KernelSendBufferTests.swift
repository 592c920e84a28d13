import SwitchboardIO
import SwitchboardSystem
import Synchronization
import Testing

@testable import SwitchboardLoop

#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket's kernel send buffer is fixed (`websocket.kernel_send_buffer_bytes`):
/// what a peer does not read then waits in the connection's own queue, which
/// `maxOutboundBytes` bounds, instead of in the kernel's, which on loopback
/// autotuning starts at megabytes.
@Suite struct KernelSendBufferTests {
    /// Bytes the kernel took of 4 MiB written to a peer that reads nothing
    /// (a 4 KiB receive buffer), with the send buffer limited to `limit` or not.
    private func kernelTakes(limit: Int?) throws -> Int {
        let pair = try LoopbackPair(peerReceiveBufferBytes: 4096)
        let server = pair.server
        defer { Posix.close(pair.client) }

        let loop = try EventLoop(index: 0, maxFileDescriptors: 65_536)
        nonisolated(unsafe) let handler = BacklogHandler()
        let taken = Atomic<Int>(-1)
        let written = 4 << 20
        loop.execute {
            guard
                let connection = try? Connection.open(
                    fd: server, loop: loop, cipher: nil, maxOutboundBytes: 64 << 20, handler: handler)
            else { return }
            if let limit { connection.limitKernelSendBuffer(toBytes: limit) }
            let chunk = [UInt8](repeating: 7, count: 64 << 10)
            for _ in 0..<(written / chunk.count) { connection.write(chunk) }
            taken.store(written - connection.pendingOutboundBytes, ordering: .releasing)
            connection.closeNow()
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        try #require(waitUntil { taken.load(ordering: .acquiring) >= 0 }, "the connection could not be registered")
        return taken.load(ordering: .acquiring)
    }

    @Test func aLimitedSocketLeavesWhatThePeerDoesNotReadInTheConnectionsQueue() throws {
        // 64 KiB asked: the kernel keeps twice that, and the peer's small window holds a little more.
        let limited = try kernelTakes(limit: 64 << 10)
        #expect(limited <= 256 << 10, "the kernel took \(limited) bytes")
        #expect(limited > 0)
    }

    @Test func withoutTheLimitTheKernelTakesFarMore() throws {
        // What the limit is for: autotuning's buffer on loopback (this is the
        // kernel's behaviour, checked so the test above means something here).
        let unlimited = try kernelTakes(limit: nil)
        #expect(unlimited > 512 << 10, "the kernel took \(unlimited) bytes")
    }
}
