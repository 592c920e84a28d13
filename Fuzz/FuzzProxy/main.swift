// libFuzzer target for the PROXY protocol header parser, X-Forwarded-For and
// the address parser (SwitchboardAdmission). Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// A header found in the input must be found the same in the input cut right
// after it, and every shorter prefix must ask for more; an input that is not a
// header must never become one when cut. A parsed address must print as text
// that parses back to it.
import SwitchboardAdmission

private let trusted = IPNetworkSet([IPNetwork(parsing: "10.0.0.0/8")!, IPNetwork(parsing: "2001:db8::/32")!])

private func checkProxyHeader(_ bytes: UnsafeRawBufferPointer) {
    let whole = ProxyProtocol.parse(bytes)
    switch whole {
    case .header(let source, let length):
        precondition(length > 0 && length <= bytes.count, "header length out of range")
        precondition(length <= ProxyProtocol.maxV2Length, "header longer than the parser takes")
        precondition(
            ProxyProtocol.parse(UnsafeRawBufferPointer(rebasing: bytes[..<length]))
                == .header(source: source, length: length),
            "the header alone parses differently")
        for cut in stride(from: 0, to: length, by: max(1, length / 64)) {
            precondition(
                ProxyProtocol.parse(UnsafeRawBufferPointer(rebasing: bytes[..<cut])) == .needMore,
                "a prefix of a header is not needMore")
        }
        if let source { checkAddress(source) }
    case .absent, .invalid:
        for cut in stride(from: 0, to: min(bytes.count, 128), by: 1) {
            let prefix = ProxyProtocol.parse(UnsafeRawBufferPointer(rebasing: bytes[..<cut]))
            precondition(prefix == .needMore || prefix == whole, "a prefix changed its verdict")
        }
    case .needMore:
        precondition(bytes.count < ProxyProtocol.maxV2Length, "needMore past the longest header")
    }
}

private func checkAddress(_ address: IPAddress) {
    precondition(IPAddress(parsing: address.description) == address, "address does not round-trip: \(address)")
    precondition(address.limitKey.limitKey == address.limitKey, "limit key not stable")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    checkProxyHeader(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    if let address = IPAddress(parsing: text) { checkAddress(address) }
    if let network = IPNetwork(parsing: text) {
        precondition(network.contains(network.address), "a block does not contain its own address")
        precondition(IPNetwork(parsing: network.description) == network, "block does not round-trip")
    }
    if let client = ForwardedFor.client([text], trusted: trusted) { checkAddress(client) }
    return 0
}
