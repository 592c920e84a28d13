// libFuzzer target for the NATS protocol parser: what a NATS server sends.
// Built with -sanitize=fuzzer,address -parse-as-library, so this file holds
// declarations only.
//
// The input is fed whole and, to a second parser, one byte at a time: both
// must produce the same events (or fail at the same event), keep within
// their limits, and never crash.
import SwitchboardNATS

/// Small limits so that the fuzzer reaches them with short inputs.
private let limits = NATSParser.Limits(maxLineBytes: 256, maxPayloadBytes: 1024)

private func events(_ chunks: [ArraySlice<UInt8>]) -> (events: [String], failed: Bool) {
    var parser = NATSParser(limits: limits)
    var seen: [String] = []
    for chunk in chunks {
        parser.feed(chunk)
        do {
            while let event = try parser.next() {
                seen.append("\(event)")
                if case .msg(_, _, let payload) = event {
                    precondition(payload.count <= limits.maxPayloadBytes, "a payload over the limit")
                }
            }
        } catch {
            return (seen, true)
        }
        precondition(parser.bufferedCount <= limits.maxLineBytes + limits.maxPayloadBytes + 2, "unbounded buffer")
    }
    return (seen, false)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: start, count: count))
    let whole = events([bytes[...]])
    let split = events(bytes.indices.map { bytes[$0...$0] })
    precondition(whole.failed == split.failed, "the split feed failed differently")
    precondition(whole.events == split.events, "the split feed parsed differently")
    return 0
}
