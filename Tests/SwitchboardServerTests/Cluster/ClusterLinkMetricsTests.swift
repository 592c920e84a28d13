import Foundation
import Logging
import SwitchboardChatCore
import SwitchboardCluster
import SwitchboardMetrics
import Synchronization
import Testing

@testable import SwitchboardServer

/// What `ClusterLink` tells `/metrics` of its bus: notifications out only for
/// what the bus sent (a node alone sends nothing), and the bus's own count
/// of dropped events, brought up to date by the poller.
@Suite struct ClusterLinkMetricsTests {
    /// A connected bus that sends only while `listened` and reports `dropped`.
    final class CountingBus: ClusterBus, @unchecked Sendable {
        let name = "fake"
        let listened = Atomic<Bool>(false)
        let dropped = Atomic<Int>(0)
        var state: BusState { .connected }
        func start(_ handlers: BusHandlers) {}
        func stop() {}
        func publish(_ event: BusEvent) -> Bool { listened.load(ordering: .relaxed) }
        var droppedEvents: Int { dropped.load(ordering: .relaxed) }
        func caughtUp(generation: UInt64) {}
        func watch(session: String) {}
        func unwatch(session: String) {}
        func watch(workspace: String) {}
        func unwatch(workspace: String) {}
    }

    func value(_ metrics: GatewayMetrics, _ series: String) -> Double? {
        metrics.renderString().split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    func typing() -> ChatEvent {
        .session(
            SessionFrame(
                sessionID: "s-1", seq: nil, excludedConnection: nil, frame: SharedFrame(payload: Array("{}".utf8))))
    }

    @Test func notificationsOutCountWhatWasSentAndDropsFollowTheBus() throws {
        let bus = CountingBus()
        let metrics = GatewayMetrics()
        let link = ClusterLink(
            bus: bus, nodeID: "n1", cores: ChatCores(), metrics: metrics, logger: Logger(label: "test"))
        link.start()
        defer { link.stop() }
        let out = "switchboard_bus_notifications_total{direction=\"out\"}"

        link.publish(typing())
        link.publish(typing())
        #expect(value(metrics, out) == 0, "nobody listened: nothing went out")
        bus.listened.store(true, ordering: .relaxed)
        link.publish(typing())
        #expect(value(metrics, out) == 1)

        bus.dropped.store(3, ordering: .relaxed)
        let deadline = Date().addingTimeInterval(5)
        while value(metrics, "switchboard_bus_dropped_total") != 3 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(value(metrics, "switchboard_bus_dropped_total") == 3)
        bus.dropped.store(5, ordering: .relaxed)
        // Its next change, however late the sampler runs: 5 (a counter that added again would show 8).
        let again = Date().addingTimeInterval(5)
        while value(metrics, "switchboard_bus_dropped_total") == 3 && Date() < again {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(value(metrics, "switchboard_bus_dropped_total") == 5, "the counter follows, not adds again")
    }
}
