/// `loadtest abuser PORT SECONDS [...]`: one abusive address against the
/// gateway on 127.0.0.1:PORT (`Abuser`); prints one JSON line of counts.
public enum AbuserDriver {
    public static let usage = """
        usage: loadtest abuser PORT SECONDS [--source 127.0.0.2] [--rate 1000] [--drip-s 5] [--alternate S]

        From --source, opens --rate connections per second to 127.0.0.1:PORT for SECONDS,
        each sending a request head one byte every --drip-s seconds and never finishing it
        (a connection flood that is also a slow-loris). Reads every answer and closes each
        socket the gateway closes. --alternate S floods only in the B windows of S seconds
        on the wall clock (A B B A ..., as `loadtest --alternate S` splits its latency) and
        closes what it holds as an A window begins. Prints one JSON line of counts.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "abuser", parse: parse) { abuser, _ in
            print(try abuser.run().json.text)
            return true
        }
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> Abuser {
        let flags = try DriverFlags(arguments, options: ["source", "rate", "drip-s", "alternate"])
        guard flags.positional.count == 2, let port = UInt16(flags.positional[0]),
            let seconds = Double(flags.positional[1])
        else { throw DriverFlags.UsageError(description: "needs PORT and SECONDS") }
        var abuser = Abuser(port: port, seconds: seconds)
        abuser.source = flags.string("source") ?? abuser.source
        abuser.rate = try flags.double("rate", default: abuser.rate)
        abuser.dripSeconds = try flags.double("drip-s", default: abuser.dripSeconds)
        abuser.alternateSeconds = try flags.double("alternate", default: 0)
        guard abuser.rate > 0, abuser.dripSeconds > 0 else {
            throw DriverFlags.UsageError(description: "--rate and --drip-s must be above 0")
        }
        return abuser
    }
}
