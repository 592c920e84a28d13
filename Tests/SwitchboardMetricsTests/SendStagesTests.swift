import Testing

@testable import SwitchboardMetrics

@Suite struct SendStagesTests {
    /// The lines of one stage's series in the exposition.
    private func lines(_ stages: SendStages, _ stage: String) -> [String] {
        var out: [UInt8] = []
        stages.render(into: &out)
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { $0.contains("stage=\"\(stage)\"") }
    }

    @Test func aBatchIsRecordedOnceWithItsCount() {
        let stages = SendStages()
        stages.observe(.handoff, nanoseconds: 1_200_000, count: 500)
        let handoff = lines(stages, "handoff")
        #expect(handoff.contains("switchboard_send_stage_seconds_bucket{stage=\"handoff\",le=\"0.001\"} 0"))
        #expect(handoff.contains("switchboard_send_stage_seconds_bucket{stage=\"handoff\",le=\"0.0015\"} 500"))
        #expect(handoff.contains("switchboard_send_stage_seconds_bucket{stage=\"handoff\",le=\"+Inf\"} 500"))
        #expect(handoff.contains("switchboard_send_stage_seconds_sum{stage=\"handoff\"} 0.6"))
        #expect(handoff.contains("switchboard_send_stage_seconds_count{stage=\"handoff\"} 500"))
        #expect(stages.count(.deliver) == 0)
    }

    @Test func bucketsAreCumulativeAndBoundsInclusive() {
        let stages = SendStages()
        stages.observeMany { observe in
            observe(.queue, 50_000, 1)  // on the first bound: counted in it
            observe(.queue, 50_001, 1)
            observe(.queue, 3_000_000_000, 1)  // past every bound
            observe(.queue, 7, 0)  // no messages: nothing
        }
        let queue = lines(stages, "queue")
        #expect(queue.contains("switchboard_send_stage_seconds_bucket{stage=\"queue\",le=\"0.00005\"} 1"))
        #expect(queue.contains("switchboard_send_stage_seconds_bucket{stage=\"queue\",le=\"0.0001\"} 2"))
        #expect(queue.contains("switchboard_send_stage_seconds_bucket{stage=\"queue\",le=\"2.5\"} 2"))
        #expect(queue.contains("switchboard_send_stage_seconds_bucket{stage=\"queue\",le=\"+Inf\"} 3"))
        #expect(stages.count(.queue) == 3)
    }

    @Test func secondsAreWrittenWithoutExponentOrTrailingZeros() {
        #expect(SendStages.seconds(0) == "0")
        #expect(SendStages.seconds(50_000) == "0.00005")
        #expect(SendStages.seconds(2_500_000_000) == "2.5")
        #expect(SendStages.seconds(1_000_000_000) == "1")
        #expect(SendStages.seconds(1) == "0.000000001")
    }
}
