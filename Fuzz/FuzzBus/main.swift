// libFuzzer target for the cluster bus's decoder: what another node (or
// anyone who can NOTIFY on the channel or publish on the NATS subjects)
// sends. Built with -sanitize=fuzzer,address -parse-as-library, so this file
// holds declarations only.
//
// The input is decoded; it must either be refused with an error or decode to
// an event that, encoded again by this node, decodes to the same event.
import SwitchboardCluster

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: start, count: count))
    guard let decoded = try? BusDecoder.decode(bytes) else { return 0 }
    var encoder = BusEncoder(node: decoded.node)
    let again: BusNotification
    do {
        again = try BusDecoder.decode(encoder.encode(decoded.event))
    } catch {
        preconditionFailure("an event that decoded does not decode once encoded again: \(error)")
    }
    precondition(again.event == decoded.event, "the event changed on the way round: \(decoded.event)")
    return 0
}
