extension DeliveryOutcome {
    /// What to record after attempting `delivery`: success on any 2xx; else
    /// the error for the log and when to try again (nil after the last attempt).
    public init(
        of delivery: DueDelivery, result: AttemptResult, durationMilliseconds: Int, finishedAt now: Double,
        schedule: RetrySchedule
    ) {
        let statusCode: Int?
        let responseHead: String
        let error: String?
        switch result {
        case .answered(let status, let head):
            statusCode = status
            responseHead = head
            error =
                (200...299).contains(status)
                ? nil : (300...399).contains(status) ? "HTTP \(status) (redirects are not followed)" : "HTTP \(status)"
        case .noAnswer(_, let message):
            statusCode = nil
            responseHead = ""
            error = message
        }
        let succeeded = error == nil
        self.init(
            deliveryID: delivery.id, endpointID: delivery.endpointID, eventID: delivery.eventID,
            handoffID: delivery.handoffID, succeeded: succeeded, statusCode: statusCode,
            durationMilliseconds: durationMilliseconds, error: error, responseHead: responseHead,
            nextAttemptAt: succeeded
                ? nil : schedule.nextAttemptAt(afterFailedAttempt: delivery.attempt + 1, failedAt: now))
    }
}
