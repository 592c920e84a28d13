import Foundation
import SwitchboardCluster
import Synchronization

/// What a bus handed its node: notifications, connection generations, losses.
final class Heard: @unchecked Sendable {
    let events = Mutex<[BusNotification]>([])
    let generations = Mutex<[UInt64]>([])
    let losses = Atomic<Int>(0)

    var handlers: BusHandlers {
        BusHandlers(
            received: { [self] notification in events.withLock { $0.append(notification) } },
            connected: { [self] generation in generations.withLock { list in list.append(generation) } },
            disconnected: { [self] in losses.add(1, ordering: .relaxed) })
    }

    /// The payloads of the typing-style frames heard, as text.
    var framePayloads: [String] {
        events.withLock { $0 }.compactMap { event -> String? in
            if case .sessionFrame(_, let payload) = event.event { return String(decoding: payload, as: UTF8.self) }
            return nil
        }
    }

    func wait(until condition: () -> Bool, seconds: Double = 10) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }
}
