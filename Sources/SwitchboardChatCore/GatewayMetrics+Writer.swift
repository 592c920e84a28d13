import SwitchboardMetrics
import SwitchboardWriter

extension GatewayMetrics {
    /// A committed (or failed) batch, counted on the writer's thread before
    /// anyone is answered: a client holding its ack finds the message in /metrics.
    package func count(_ batch: WriterBatchResult) {
        if let latency = batch.commitLatencyMicroseconds {
            batchSize.observe(batch.results.count)
            commitLatency.observe(Double(latency) / 1_000_000)
            timeWriterStages(batch)
        }
        var stored = 0
        var duplicates = 0
        var failures = 0
        for result in batch.results {
            switch result.outcome {
            case .stored: stored += 1
            case .duplicate: duplicates += 1
            case .unavailable, .failed: failures += 1
            case .noSession, .badAttachment: break
            }
        }
        messagesStored.increment(by: stored)
        messagesDuplicate.increment(by: duplicates)
        if failures > 0 { databaseErrors(.writer).increment(by: failures) }
    }

    /// The writer's stages of a committed batch (docs/benchmarks.md, "Latency").
    private func timeWriterStages(_ batch: WriterBatchResult) {
        guard batch.sentAt > 0, batch.finishedAt >= batch.sentAt else { return }
        sendStages.observeMany { observe in
            observe(.commit, batch.finishedAt - batch.sentAt, batch.results.count)
            for result in batch.results where result.acceptedAt > 0 && result.acceptedAt <= batch.sentAt {
                observe(.queue, batch.sentAt - result.acceptedAt, 1)
                if result.receivedAt > 0 && result.receivedAt <= result.acceptedAt {
                    observe(.receive, result.acceptedAt - result.receivedAt, 1)
                }
            }
        }
    }

}
