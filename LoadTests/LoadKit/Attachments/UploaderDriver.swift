/// `loadtest uploader PORT SECONDS [...]`: the upload load against the gateway
/// on 127.0.0.1:PORT (`Uploader`); prints one JSON line of counts.
public enum UploaderDriver {
    public static let usage = """
        usage: loadtest uploader PORT SECONDS --jwt-secret SECRET [--concurrency 50] [--size BYTES] [--alternate S]

        Creates --concurrency sessions as one visitor of a fresh workspace, then uploads a
        PDF of --size bytes (default 102400) to each, one upload after another per session,
        each on a new connection, for SECONDS. Prints one JSON line: uploads by answer
        (201, 429, 503, other, failed, cut), bytes stored, and the p50/p99 time of an upload.
        --alternate S uploads only in the B windows of S seconds on the wall clock (A B B A ...,
        as `loadtest --alternate S` splits its latency) and resets every upload still going
        when an A window begins (counted as cut).
        """

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "uploader", parse: parse) { uploader, _ in
            print(try uploader.run().json.text)
            return true
        }
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Uploader {
        let flags = try DriverFlags(arguments, options: ["jwt-secret", "concurrency", "size", "alternate"])
        guard flags.positional.count == 2, let port = UInt16(flags.positional[0]),
            let seconds = Double(flags.positional[1]), seconds > 0
        else { throw DriverFlags.UsageError(description: "needs PORT and SECONDS") }
        var uploader = Uploader(port: port, seconds: seconds)
        uploader.secret = try flags.required("jwt-secret")
        uploader.concurrency = try flags.int("concurrency", default: uploader.concurrency)
        uploader.size = try flags.int("size", default: uploader.size)
        uploader.alternateSeconds = try flags.double("alternate", default: 0)
        guard uploader.concurrency > 0, uploader.size >= 16 else {
            throw DriverFlags.UsageError(description: "--concurrency must be above 0 and --size at least 16")
        }
        return uploader
    }
}
