/// Runs one of OpenSSL's one-shot digest functions (`SHA1`, `SHA256`, ...)
/// over `bytes`, which all share the C shape (input, length, output).
enum OneShotDigest {
    typealias Function = (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?

    static func compute(_ bytes: some Collection<UInt8>, length: Int, with function: Function) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        let input = Array(bytes)
        input.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { out in
                _ = function(source.baseAddress, source.count, out.baseAddress)
            }
        }
        return digest
    }
}
