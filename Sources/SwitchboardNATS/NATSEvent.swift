/// One protocol message from the server, as `NATSParser` returns it.
public enum NATSEvent: Sendable, Equatable {
    /// The server's description of itself: the JSON object, as sent.
    case info([UInt8])
    /// A message for subscription `sid`, on `subject` (the concrete subject,
    /// also when the subscription used wildcards). A reply subject, when the
    /// server sends one, is parsed and not kept: this client does no requests.
    case msg(subject: String, sid: UInt64, payload: [UInt8])
    case ping
    case pong
    /// Only sent in verbose mode, which this client does not ask for.
    case ok
    /// -ERR with the server's text, without its quotes.
    case err(String)
}
