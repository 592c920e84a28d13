import SwitchboardWebhooks
import Testing

@Suite struct DeliveryOutcomeTests {
    static func delivery(attempt: Int) -> DueDelivery {
        DueDelivery(
            id: "d1", eventID: "evt_1", endpointID: "e1", url: "https://example.com/", secrets: [], body: "{}",
            attempt: attempt, eventCreatedAt: 0)
    }

    func outcome(_ result: AttemptResult, attempt: Int = 0) -> DeliveryOutcome {
        DeliveryOutcome(
            of: Self.delivery(attempt: attempt), result: result, durationMilliseconds: 12, finishedAt: 1000,
            schedule: RetrySchedule())
    }

    @Test func anyTwoHundredSucceedsWithNoNextAttempt() {
        for status in [200, 201, 204, 299] {
            let outcome = outcome(.answered(statusCode: status, responseHead: "ok"))
            #expect(outcome.succeeded)
            #expect(outcome.statusCode == status)
            #expect(outcome.error == nil)
            #expect(outcome.nextAttemptAt == nil)
            #expect(outcome.responseHead == "ok")
            #expect(outcome.durationMilliseconds == 12)
            #expect(outcome.deliveryID == "d1" && outcome.endpointID == "e1")
        }
    }

    @Test func otherStatusesFailAndRetryOnTheSchedule() {
        let failed = outcome(.answered(statusCode: 500, responseHead: "oops"), attempt: 0)
        #expect(!failed.succeeded)
        #expect(failed.error == "HTTP 500")
        #expect(failed.nextAttemptAt == 1005)
        #expect(failed.responseHead == "oops")
        let redirected = outcome(.answered(statusCode: 302, responseHead: ""), attempt: 1)
        #expect(redirected.error == "HTTP 302 (redirects are not followed)")
        #expect(redirected.nextAttemptAt == 1300)
        #expect(!outcome(.answered(statusCode: 199, responseHead: ""), attempt: 0).succeeded)
        #expect(!outcome(.answered(statusCode: 300, responseHead: ""), attempt: 0).succeeded)
    }

    @Test func theEighthFailureIsTheLast() {
        let seventh = outcome(.answered(statusCode: 503, responseHead: ""), attempt: 6)
        #expect(seventh.nextAttemptAt == Double(1000 + 36000), "\(String(describing: seventh.nextAttemptAt))")
        let last = outcome(.noAnswer(.timeout, message: "timed out after 10000 ms"), attempt: 7)
        #expect(!last.succeeded)
        #expect(last.nextAttemptAt == nil)
        #expect(last.statusCode == nil)
        #expect(last.error == "timed out after 10000 ms")
    }

    @Test func kindsAreTheMetricsLabels() {
        #expect(AttemptOutcomeKind(.answered(statusCode: 204, responseHead: "")) == .success)
        #expect(AttemptOutcomeKind(.answered(statusCode: 404, responseHead: "")) == .httpError)
        #expect(AttemptOutcomeKind(.noAnswer(.refusedTarget, message: "")).description == "refused_target")
        #expect(
            AttemptOutcomeKind.allCases.map(\.description) == [
                "success", "http_error", "timeout", "resolve_error", "connect_error", "refused_target", "tls_error",
                "invalid_endpoint", "transfer_error",
            ])
    }
}
