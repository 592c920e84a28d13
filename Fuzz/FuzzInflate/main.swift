// libFuzzer target for the permessage-deflate decompressor. Built with
// `-sanitize=fuzzer,address -parse-as-library`, so this file holds declarations only.
import SwitchboardDeflate

/// Inflates the input as up to two messages with a small limit: the first byte
/// chooses the window, context takeover and where the input is cut. Any crash,
/// sanitizer report or output past the limit is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let control = start[0]
    let body = UnsafeRawBufferPointer(start: start + 1, count: count - 1)
    let windowBits = 8 + Int(control & 7)
    let noContextTakeover = control & 8 != 0
    let cut = body.isEmpty ? 0 : Int(control >> 4) * body.count / 15
    let limit = 1024

    guard let inflater = try? MessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover) else {
        preconditionFailure("inflater init failed")
    }
    for range in [0..<cut, cut..<body.count] {
        var output: [UInt8] = []
        do throws(DeflateError) {
            try inflater.inflate(UnsafeRawBufferPointer(rebasing: body[range]), limit: limit, into: &output)
            try inflater.finishMessage(limit: limit, into: &output)
        } catch {
            switch error {
            case .tooLarge, .corrupt: break
            case .zlib(let code): preconditionFailure("unexpected zlib error \(code)")
            }
        }
        precondition(output.count <= limit + 1, "inflation ran past the limit")
    }
    return 0
}
