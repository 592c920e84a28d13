import Logging
import SwitchboardSystem
import SwitchboardTestSupport
import SwitchboardWebhookDelivery
import SwitchboardWebhooks

/// A dispatcher between a fake queue and a test receiver, with settings made
/// for tests (private targets allowed, short timeouts and polls).
struct DispatcherFixture {
    let receiver: TestReceiver
    let queue: FakeDeliveryQueue
    let metrics = RecordingMetrics()
    let dispatcher: WebhookDispatcher
    let secret = WebhookSecret.generate()

    static func settings(_ change: (inout WebhookDeliverySettings) -> Void = { _ in }) -> WebhookDeliverySettings {
        var settings = WebhookDeliverySettings()
        settings.allowPrivateTargets = true
        settings.timeoutSeconds = 5
        settings.connectTimeoutSeconds = 2
        settings.pollIntervalMilliseconds = 50
        change(&settings)
        return settings
    }

    init(
        settings: WebhookDeliverySettings = Self.settings(), queue: FakeDeliveryQueue = FakeDeliveryQueue(),
        reply: @escaping @Sendable (TestReceiver.Request, Int) -> TestReceiver.Reply = { _, _ in .ok },
        gatewayBusy: @escaping @Sendable () -> Bool = { false }
    ) throws {
        self.queue = queue
        receiver = try TestReceiver(reply: reply)
        var logger = Logger(label: "webhooks-test")
        logger.logLevel = .error
        dispatcher = WebhookDispatcher(
            queue: queue, settings: settings, metrics: metrics, logger: logger, gatewayBusy: gatewayBusy)
    }

    /// A delivery of event `n` to the receiver's `path`, as endpoint `endpoint`.
    func delivery(
        _ n: Int, endpoint: String = "ep_1", path: String = "/hook", secrets: [String]? = nil,
        committedSecondsAgo: Double = 0
    ) -> DueDelivery {
        DueDelivery(
            id: "dlv_\(n)", eventID: "evt_\(n)", endpointID: endpoint, url: receiver.url + path,
            secrets: secrets ?? [secret.text], body: #"{"id":"evt_\#(n)","type":"message.created","data":{"n":\#(n)}}"#,
            attempt: 0, eventCreatedAt: FakeDeliveryQueue.now() - committedSecondsAgo)
    }

    func start() throws { try dispatcher.start() }

    func stop() {
        dispatcher.stop()
        receiver.stop()
    }
}

/// Milliseconds since `start` (monotonic nanoseconds).
func millisecondsSince(_ start: UInt64) -> Double { Double(MonotonicClock.nanoseconds() - start) / 1e6 }
