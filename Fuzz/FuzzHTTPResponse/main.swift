// libFuzzer target for the webhook client's answer reader (HTTPResponseReader). Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// The input is read whole, split at a position taken from its first byte, and (when short)
// byte by byte; every way must end the same: the same status, body excerpt, counts, framing
// and failure, and the same bytes taken. The reader must never take more than it is given,
// never count past its limit, and never call a connection fit for reuse after an answer cut
// at the limit. A second answer in the same input is read after `reset`, as a kept-alive
// connection would.
import SwitchboardHTTP

private struct Outcome: Equatable {
    var answers: [Answer] = []
    var failure: HTTPResponseReader.Failure?
}

private struct Answer: Equatable {
    var status: Int?
    var head: [UInt8]
    var bodyBytes: Int
    var cut: Bool
    var complete: Bool
    var keeps: Bool
}

/// Small limits so that the fuzzer reaches them with short inputs.
private let maximumBody = 96
private let kept = 16

private func run(_ chunks: [UnsafeRawBufferPointer]) -> Outcome {
    var reader = HTTPResponseReader(maximumBodyBytes: maximumBody, keptBodyBytes: kept)
    var outcome = Outcome()
    func answer() -> Answer {
        Answer(
            status: reader.statusCode, head: reader.bodyHead, bodyBytes: reader.bodyBytesRead,
            cut: reader.bodyCut, complete: reader.isComplete, keeps: reader.keepsConnection)
    }
    do throws(HTTPResponseReader.Failure) {
        chunks: for chunk in chunks {
            var offset = 0
            while offset < chunk.count {
                let rest = UnsafeRawBufferPointer(rebasing: chunk[offset...])
                let taken = try reader.read(rest)
                precondition(taken >= 0 && taken <= rest.count, "took more than it was given")
                precondition(reader.bodyBytesRead <= maximumBody, "counted past the limit")
                precondition(reader.bodyHead.count <= kept, "kept more than the excerpt")
                precondition(!(reader.bodyCut && reader.keepsConnection), "a cut answer keeps its connection")
                offset += taken
                guard reader.isComplete else {
                    precondition(taken == rest.count, "an incomplete answer left bytes")
                    continue
                }
                outcome.answers.append(answer())
                // Only a connection fit for reuse reads another answer; two are enough.
                guard reader.keepsConnection && outcome.answers.count < 2 else { break chunks }
                reader.reset()
            }
        }
        if outcome.answers.count < 2 && !(outcome.answers.last.map { !$0.keeps } ?? false) {
            try reader.endOfInput()
            outcome.answers.append(answer())
        }
    } catch {
        outcome.failure = error
        outcome.answers.append(answer())
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let split = count == 0 ? 0 : Int(input[0]) % (count + 1)
    let whole = run([input])
    let halves = [UnsafeRawBufferPointer(rebasing: input[..<split]), UnsafeRawBufferPointer(rebasing: input[split...])]
    precondition(run(halves) == whole, "split at \(split) differs")
    if count <= 512 {
        let bytewise = (0..<count).map { UnsafeRawBufferPointer(rebasing: input[$0..<($0 + 1)]) }
        precondition(run(bytewise) == whole, "byte by byte differs")
    }
    return 0
}
